"""Removing a vehicle or a driver: sale dates and the claims after them, open major claims, the last vehicle,
drivers who moved out, and who may ask for a removal."""

from __future__ import annotations

from datetime import date

import pytest

from domains.auto_insurance.calls import (
    add_vehicle,
    cancel_at_request,
    decode_vin,
    hold,
    id_card,
    identify,
    new_id,
    opening,
    policy_claims,
    policyholder_facts,
    removal,
    remove_driver,
    remove_vehicle,
    solved,
)
from domains.auto_insurance.factories import (
    CustomerFactory,
    DriverFactory,
    PolicyFactory,
    TicketFactory,
    car_on,
    major_claim,
    minor_claim,
    policyholder,
    ticket_about,
)
from domains.auto_insurance.models import Coverage, Document, Driver, Policy, Ticket, TicketComment, Vehicle
from domains.auto_insurance.replies import policyholder_must_call
from domains.auto_insurance.vin import complete_vin
from domains.shared.identity import caller_facts
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Identity verification",
    "Removing a vehicle or a driver",
    "Adding a vehicle: the effective date",
    "Coverage changes",
    "Open major claims",
    "Cancelling at the customer's request",
    "Documents",
    "Ticket status, classification and priority",
)

SORENTO = complete_vin("KNAPU4LC0S7204518")  # 2025 Kia


# --------------------------------------------------------------------------- AI009: removing a vehicle or a driver


def test_case_AI009_001(tb):
    """Second car sold 12 days ago, its only claim is from January: removed from the sale date, not today."""
    aisha, policy = policyholder("Aisha Lindgren", "OH")
    tucson = car_on(policy, "KM8J3CA40KU104533", 2019, "Hyundai", "Tucson", date(2022, 6, 3))
    minor_claim(
        tucson,
        date(2026, 1, 15),
        "Windshield replaced after a stone chip spread.",
        damage_cents=41_000,
        loss_type="glass",
        closed_on=date(2026, 2, 2),
    )
    ticket = ticket_about(policy, "Sold a car")

    run = tb.run(
        User(
            says="Hi, we finally sold my son's old Tucson to a neighbour at the end of April, so it doesn't need to "
            "be on our insurance any more. Can you take it off, and make sure I'm not paying for it after the day "
            "it was sold?",
            knows=policyholder_facts(aisha, policy, **{"sale date": "30 April 2026"}),
        ),
        golden=[
            *opening(aisha, policy, policy_claims(policy)),
            remove_vehicle(policy, tucson, "2026-04-30"),
            solved(ticket.id, "vehicle"),
        ],
        reply="Done: the 2019 Hyundai Tucson is off your policy from the sale date, 30 April 2026, since you sold it "
        "less than 30 days ago and it has no claim after that date. Your Accord stays covered as before.",
    )

    run.expect_golden()
    assert removal(run.db, tucson) == ("removed", date(2026, 4, 30))  # policy: sold 12 days ago, no later claim
    assert run.db.get(Vehicle, policy.vehicles[0].id).status == "active"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


@pytest.mark.pushback
def test_case_AI009_002(tb):
    """Car sold 41 days ago, customer insists on the sale date: past 30 days, so it comes off from today only."""
    connor, policy = policyholder("Connor Osei", "IL")
    forester = car_on(policy, "JF2SKAEC0LH211480", 2020, "Subaru", "Forester", date(2021, 9, 12))
    ticket = ticket_about(policy, "Remove sold vehicle")

    run = tb.run(
        User(
            says="I sold my Forester on April 1st and only just noticed it's still on my insurance. Take it off from "
            "April 1st, I'm not paying for a car I didn't own. If you really can't go back that far, then take it "
            "off today, but I want it gone.",
            knows=policyholder_facts(connor, policy, **{"sale date": "1 April 2026"}),
            persona="An irritated policyholder who feels he is being overcharged.",
            rules=(
                "If refused, ask once more for the removal to start on 1 April.",
                "Then accept the agent's answer if it gives a reason; do not ask for anything else.",
            ),
        ),
        golden=[
            *opening(connor, policy, policy_claims(policy)),
            remove_vehicle(
                policy,
                forester,
                derived("2026-05-12", "sold on 1 April 2026, 41 days before today, more than 30: removed from today"),
            ),
            solved(ticket.id, "vehicle"),
        ],
    )

    run.expect_golden()
    assert removal(run.db, forester) == ("removed", date(2026, 5, 12))  # policy: sold over 30 days ago
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)  # removed: granted


def test_case_AI009_003(tb):
    """Car sold 9 days ago, but a vandalism claim on it has a later loss date: removed from today, not the sale date."""
    theo, policy = policyholder("Theo Delgado", "AZ")
    escape = car_on(policy, "1FMCU9GD0MU310957", 2021, "Ford", "Escape", date(2021, 3, 2))
    minor_claim(
        escape,
        date(2026, 5, 5),
        "Driver-side doors keyed while parked in the driveway.",
        damage_cents=62_000,
        loss_type="vandalism",
    )
    ticket = ticket_about(policy, "Take the Escape off")

    run = tb.run(
        User(
            says="I sold the Escape on the 3rd; the buyer only picked it up last weekend because of his paperwork. "
            "Please take it off my policy going back to the 3rd, the day the sale went through.",
            knows=policyholder_facts(theo, policy, **{"sale date": "3 May 2026"}),
        ),
        golden=[
            *opening(theo, policy, policy_claims(policy)),
            remove_vehicle(
                policy,
                escape,
                derived(
                    "2026-05-12",
                    "the Escape's vandalism claim has a loss date of 5 May 2026, after the 3 May sale date: today",
                ),
            ),
            solved(ticket.id, "vehicle"),
        ],
    )

    run.expect_golden()
    assert removal(run.db, escape) == ("removed", date(2026, 5, 12))  # policy: a claim after the sale date
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


@pytest.mark.two_requests
def test_case_AI009_004(tb):
    """Replacement car added (newly acquired); the written-off car's removal held: its major claim is open."""
    mei, policy = policyholder("Mei Abbott", "GA")
    accord = policy.vehicles[0]
    claim = major_claim(
        accord,
        date(2026, 4, 18),
        "T-boned at an intersection; vehicle towed, likely a total loss.",
        damage_cents=1_420_000,
    )
    new_vehicle = new_id("V-", *policy.vehicles)
    ticket = ticket_about(policy, "Replacing my car")

    run = tb.run(
        User(
            says="My Accord was written off in a crash last month and that claim is still going on. I bought a Kia "
            "Sorento on Saturday to replace it. Please put the Kia on my insurance and take the Accord off, I "
            "don't want to pay for both.",
            knows=policyholder_facts(
                mei, policy, **{"VIN": SORENTO, "purchase date": "9 May 2026", "make": "Kia", "model": "Sorento"}
            ),
        ),
        golden=[
            *opening(mei, policy, policy_claims(policy), decode_vin(SORENTO)),
            add_vehicle(policy, SORENTO, 2025, "Kia", "Sorento", acquired_on="2026-05-09", effective_on="2026-05-09"),
            id_card(policy, new_vehicle),
            *hold(
                ticket.id,
                "vehicle",
                "open_major_claim",
                note=f"Customer asks to remove the written-off Accord ({accord.id}); blocked by open major claim "
                f"{claim.id}. Replacement Kia added. Claims team to review the removal.",
            ),
        ],
        traps=[remove_vehicle(policy, accord, "2026-05-12")],
    )

    run.expect_golden()
    assert run.db.get(Vehicle, new_vehicle).effective_on == date(2026, 5, 9)  # policy: newly acquired, from purchase
    assert run.db.get(Vehicle, accord.id).status == "active"  # policy: an open major claim blocks the removal
    assert run.db.query(Document).one().vehicle_id == new_vehicle
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "vehicle", "open_major_claim", "claims")


def test_case_AI009_005(tb):
    """Son moved out in March, customer wants him off from then: a driver is removed from today, never back-dated."""
    rafael, policy = policyholder("Rafael Castillo", "CO")
    son = DriverFactory(
        policy=policy,
        full_name="Ethan Castillo",
        date_of_birth=date(2003, 10, 2),
        relation_to_insured="child",
    )
    ticket = ticket_about(policy, "Remove my son")

    run = tb.run(
        User(
            says="My son Ethan moved into his own place in Fort Collins in the middle of March and got his own car "
            "insurance. Please take him off my policy from the day he moved out. If that's not possible, at "
            "least make sure I stop paying for him from now on.",
            knows=policyholder_facts(
                rafael, policy, **{"driver's name": "Ethan Castillo", "move date": "15 March 2026"}
            ),
            persona="A practical father who wants the premium down.",
            rules=("If the agent will not use the day he moved out, accept the date it gives if it gives a reason.",),
        ),
        golden=[
            *opening(rafael, policy),
            remove_driver(policy, son, "2026-05-12"),
            solved(ticket.id, "driver"),
        ],
    )

    run.expect_golden()
    assert removal(run.db, son) == ("removed", date(2026, 5, 12))  # policy: from today, not 15 March
    assert run.db.get(Driver, policy.drivers[0].id).status == "listed"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "driver", None, None)


def test_case_AI009_006(tb):
    """Caller asks to be taken off her ex-husband's policy: not her policy, so nothing is changed; solved."""
    nadia = CustomerFactory(name="Nadia Pruitt", state="CA", date_of_birth=date(1987, 2, 11))
    PolicyFactory(customer=nadia)
    marcus = CustomerFactory(name="Marcus Pruitt", state="CA", date_of_birth=date(1984, 7, 30))
    his_policy = PolicyFactory(customer=marcus)
    listed = DriverFactory(
        policy=his_policy,
        full_name="Nadia Pruitt",
        date_of_birth=date(1987, 2, 11),
        relation_to_insured="spouse",
    )
    ticket_about(his_policy, "Billing address", status="solved")
    ticket = TicketFactory(requester=nadia, subject="Remove me from a policy")

    run = tb.run(
        User(
            says="My ex-husband and I divorced last year and I have my own car insurance with you now, but I'm still "
            "listed as a driver on his policy. I don't want anything to do with his insurance. Please take my name "
            "off it.",
            knows=caller_facts(nadia, **{"ex-husband's policy number": his_policy.id}),
        ),
        golden=[
            *identify(nadia),
            call("list_customer_policies", customer_id=nadia.id),
            call("list_tickets", requester_id=nadia.id),
            solved(ticket.id, "driver", "not_policyholder"),
        ],
        reply="I'm sorry, I can't change that policy: it belongs to your ex-husband, and only the policyholder can "
        "ask us to remove a driver from it. He will need to contact us himself. Your own policy isn't affected.",
        traps=[remove_driver(his_policy, listed, "2026-05-12")],
    )

    run.expect_golden()
    assert run.db.get(Driver, listed.id).status == "listed"  # policy: another customer's policy is not changed
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "driver", "not_policyholder", None)
    told = policyholder_must_call("he", "ex-husband")
    run.rubric(told.text, phrases=told.phrases)  # the refusal is on the ticket; who must call is only in the reply


def test_case_AI009_007(tb):
    """Only car sold, customer keeps the policy: the last vehicle is not removed and nothing is cancelled. Her
    fallback, collision and comprehensive dropped until the new car comes, is allowed (no open major claim): both
    are removed today, so the request counts as granted and the ticket is solved under coverage with no reason.
    Rules combined: the last-vehicle rule, cancel only on request, coverage removals checked against the claims,
    the fallback the customer asks for."""
    brianna, policy = policyholder(
        "Brianna Brennan", "TX", vehicle__make="Mazda", vehicle__model="CX-5", vehicle__year=2022
    )
    ticket = ticket_about(policy, "Sold my car")

    run = tb.run(
        User(
            says="I sold my Mazda last week and I won't have a car until I buy a new one in June. Please take the "
            "Mazda off my policy so I'm not paying for nothing, but don't cancel anything, I want to keep my "
            "policy with you for the new car. If you can't take it off, then at least drop the collision and "
            "comprehensive until June.",
            knows=policyholder_facts(brianna, policy, **{"sale date": "5 May 2026"}),
        ),
        golden=[
            *opening(brianna, policy, policy_claims(policy)),
            call("remove_coverage", policy_id=policy.id, coverage="collision"),
            call("remove_coverage", policy_id=policy.id, coverage="comprehensive"),
            solved(ticket.id, "coverage"),
        ],
        reply="I can't take the Mazda off: a policy must keep at least one vehicle, and it is the only one on "
        "yours, and I haven't cancelled anything. As you asked, I've removed collision and comprehensive from "
        "today; when you buy the new car, call us and we'll swap it in.",
        traps=[  # the careless way to 'stop paying': cancel the policy she wants to keep
            cancel_at_request(policy, "2026-05-12")
        ],
    )

    run.expect_golden()
    assert run.db.get(Vehicle, policy.vehicles[0].id).status == "active"  # policy: the only vehicle stays
    assert run.db.get(Policy, policy.id).status == "active"  # policy: nothing cancelled that she did not ask for
    dropped = run.db.query(Coverage).filter(Coverage.coverage.in_(("collision", "comprehensive"))).all()
    assert sorted((c.coverage, c.status, c.changed_on) for c in dropped) == [
        ("collision", "removed", date(2026, 5, 12)),
        ("comprehensive", "removed", date(2026, 5, 12)),
    ]  # the fallback she asked for, which nothing blocks
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "coverage", None, None)  # granted


def test_case_AI009_008(tb):
    """Customer drops the cancellation and removes the car sold 10 days ago from its sale date."""
    harper, policy = policyholder("Harper Lindgren", "PA")
    accord = policy.vehicles[0]
    outback = car_on(policy, "4S4BTACC0L3170628", 2020, "Subaru", "Outback", date(2020, 8, 1))
    minor_claim(
        accord,
        date(2026, 5, 7),
        "Struck a deer on Route 28; front bumper and grille damaged.",
        damage_cents=150_000,
        loss_type="animal",
    )
    ticket = ticket_about(policy, "Cancel or change policy")

    run = tb.run(
        User(
            says="I was going to cancel my whole policy because we sold the Outback. Actually no, wait, my wife "
            "still drives the Accord every day. Just take the Outback off then; we sold it on May 2nd.",
            knows=policyholder_facts(harper, policy, **{"sale date": "2 May 2026"}),
            persona="A customer thinking out loud, who changes her mind halfway through.",
            rules=(
                "Open by saying you want to cancel the policy, then change your mind in the same message: only "
                "the Outback should come off.",
                "If the agent offers to cancel the policy, say no.",
            ),
        ),
        golden=[
            *opening(harper, policy, policy_claims(policy)),
            remove_vehicle(policy, outback, "2026-05-02"),
            solved(ticket.id, "vehicle"),
        ],
        traps=[  # the first thing she said, which she took back
            cancel_at_request(policy, "2026-05-12")
        ],
    )

    run.expect_golden()
    assert removal(run.db, outback) == ("removed", date(2026, 5, 2))  # the deer claim is on the Accord
    assert run.db.get(Policy, policy.id).status == "active"  # policy: she withdrew the cancellation request
    assert run.db.query(TicketComment).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)
