"""Mid-term premium credits: a removed vehicle's unearned premium (from the date the removal rules give, paid
against the unpaid bills first) and the refund of a paid-in-full policy cancelled at the customer's request (less
the state's cancellation fee)."""

from __future__ import annotations

from datetime import date

import pytest

from domains.auto_insurance.calls import (
    billing_account,
    cancel_at_request,
    cancellation_refund,
    create_ticket,
    hold,
    identify,
    new_id,
    opening,
    opening_listed,
    policy_claims,
    policyholder_facts,
    premium_adjustments,
    quote_unearned,
    removal,
    removal_credit,
    remove_vehicle,
    rescind,
    solved,
    state_requirements,
    vehicle_credit,
)
from domains.auto_insurance.factories import (
    BillFactory,
    CustomerFactory,
    PolicyFactory,
    TicketFactory,
    account_of,
    cancelling,
    car_on,
    major_claim,
    minor_claim,
    policyholder,
    ticket_about,
)
from domains.auto_insurance.models import (
    Bill,
    BillingAccount,
    Document,
    Policy,
    Ticket,
    TicketComment,
    Vehicle,
)
from domains.auto_insurance.replies import cancellation_date, remaining_past_due
from domains.shared.identity import caller_facts
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Identity verification",
    "Removing a vehicle or a driver",
    "Open major claims",
    "Cancelling at the customer's request",
    "Mid-term premium credits and refunds",
    "Documents",
    "Ticket status, classification and priority",
)


# --------------------------------------------------------------------------- AI013: a removed vehicle's credit


def test_case_AI013_001(tb):
    """RAV4 sold 9 days ago (OH), no claim after the sale: removed from the sale date, and its unearned premium from
    that date (19,093 cents) pays May's open bill (16,900) first, the rest (2,193) is refunded.
    Rules combined: removal from a sale date within 30 days with no later claim, the credit quoted from the removal
    date for the vehicle's own premium, the credit paid against the unpaid bill before any refund."""
    nadia, policy = policyholder("Nadia Ferreira", "OH", vehicle__term_premium_cents=41_800)
    rav4 = car_on(policy, "2T3P1RFV0MW118204", 2021, "Toyota", "RAV4", date(2021, 8, 19), 38_400)
    may = BillFactory(account=policy.account, due_on=date(2026, 5, 18), amount_cents=16_900)
    ticket = ticket_about(policy, "Sold the RAV4")

    run = tb.run(
        User(
            says="Hello, I sold our RAV4 on the 3rd of May to a dealer. Please take it off my policy, and I expect "
            "whatever I've paid for it after the sale to come back to me.",
            knows=policyholder_facts(nadia, policy, **{"sale date": "3 May 2026"}),
        ),
        golden=[
            *opening(nadia, policy, policy_claims(policy)),
            *removal_credit(policy, rav4, "2026-05-03", 19_093),
            solved(ticket.id, "vehicle"),
        ],
        reply="The RAV4 is off your policy from the sale date, 3 May 2026. Its unearned premium from that date is "
        "$190.93: $169.00 of it pays your May bill, so there is nothing left to pay on it, and the remaining $21.93 "
        "is refunded to you.",
    )

    run.expect_golden()
    assert removal(run.db, rav4) == ("removed", date(2026, 5, 3))  # policy: sold 9 days ago, no later claim
    assert premium_adjustments(run.db, policy.id) == [
        ("vehicle_removal_credit", rav4.id, date(2026, 5, 3), 19_093, 16_900, 2_193)
    ]  # policy: the quoted credit from the removal date, against the open bill first
    assert run.db.get(BillingAccount, account_of(policy).id).balance_cents == 0
    assert run.db.get(Bill, may.id).status == "paid"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


@pytest.mark.pushback
def test_case_AI013_002(tb):
    """Forester sold 40 days ago (IL), customer insists on the sale date and a refund from it: removed from today and
    credited from today only (13,425 cents, all refunded on a paid-in-full account).
    Rules combined: the 30-day sale-date limit, the credit quoted from the removal date the rules give (not the sale
    date), a paid-in-full account with nothing unpaid so the whole credit is refunded."""
    owen, policy = policyholder(
        "Owen Marchetti", "IL", account__pay_plan="paid_in_full", vehicle__term_premium_cents=44_100
    )
    forester = car_on(policy, "JF2SKAEC0LH211917", 2020, "Subaru", "Forester", date(2020, 11, 2), 30_000)
    ticket = ticket_about(policy, "Refund for sold car")

    run = tb.run(
        User(
            says="I sold my Forester on April 2nd and forgot to tell you. I paid the whole six months up front, so "
            "take it off from April 2nd and refund me everything from that day on.",
            knows=caller_facts(owen, **{"sale date": "2 April 2026"}),
            persona="A precise customer who has worked out what he thinks he is owed.",
            rules=(
                "If refused, ask once more for the removal and the refund to start on 2 April.",
                "Then accept the agent's answer if it gives a reason.",
            ),
        ),
        golden=[
            *opening_listed(owen, policy, policy_claims(policy)),
            remove_vehicle(
                policy,
                forester,
                derived("2026-05-12", "sold 2 April 2026, 40 days ago, more than 30: removed from today"),
            ),
            quote_unearned(policy, derived("2026-05-12", "the removal date, today"), forester),
            vehicle_credit(policy, forester, 13_425, derived("2026-05-12", "the removal date, today")),
            solved(ticket.id, "vehicle"),
        ],
        traps=[vehicle_credit(policy, forester, 20_055, "2026-04-02")],
    )

    run.expect_golden()
    assert removal(run.db, forester) == ("removed", date(2026, 5, 12))  # policy: sold more than 30 days ago
    assert premium_adjustments(run.db, policy.id) == [
        ("vehicle_removal_credit", forester.id, date(2026, 5, 12), 13_425, 0, 13_425)
    ]  # policy: credited from the removal date only, all refunded
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


@pytest.mark.distractors
def test_case_AI013_003(tb):
    """Two policies, each with a Camry; the one sold (by VIN) is on the second, whose Tucson has a claim after the
    sale date. That claim is on another vehicle, so the Camry comes off from the sale date; its credit clears the
    past-due bill first and the rest goes to the open bill, nothing refunded.
    Rules combined: picking the vehicle by VIN across policies, the later-claim rule read per vehicle, the credit
    from the sale date, a credit that pays past-due bills before open ones."""
    ines, home = policyholder("Ines Halvorsen", "TX")
    car_on(home, "4T1B11HK0NU620188", 2022, "Toyota", "Camry", date(2022, 4, 9), 35_200)
    second = PolicyFactory(customer=ines, vehicle=False)
    old_camry = car_on(second, "4T1BF1FK0EU733170", 2014, "Toyota", "Camry", date(2017, 6, 1), 26_000)
    tucson = car_on(second, "KM8J3CA40KU104871", 2019, "Hyundai", "Tucson", date(2019, 10, 5), 29_500)
    minor_claim(
        tucson,
        date(2026, 5, 2),
        "Hit a deer on a county road at dusk; grille and hood dented.",
        damage_cents=133_000,
        loss_type="animal",
    )
    BillFactory(account=second.account, due_on=date(2026, 4, 20), amount_cents=14_200, status="missed")
    june = BillFactory(account=second.account, due_on=date(2026, 5, 20), amount_cents=14_200)
    ticket = TicketFactory(requester=ines, subject="Camry sold")

    run = tb.run(
        User(
            says="I sold the Camry last month, on April 24th. Can you take it off my insurance and credit me for it?",
            knows=caller_facts(
                ines, **{"VIN": old_camry.vin, "sale date": "24 April 2026", "which Camry": "the 2014 one"}
            ),
        ),
        golden=[
            *identify(ines),
            call("list_customer_policies", customer_id=ines.id),
            call("get_policy", policy_id=home.id),
            call("get_policy", policy_id=second.id),
            policy_claims(second),
            call("list_tickets", requester_id=ines.id),
            *removal_credit(second, old_camry, "2026-04-24", 14_220),
            solved(ticket.id, "vehicle"),
        ],
    )

    run.expect_golden()
    assert removal(run.db, old_camry) == ("removed", date(2026, 4, 24))  # the Tucson's claim does not count
    assert all(v.status == "active" for v in run.db.get(Policy, home.id).vehicles)  # the other Camry stays
    assert premium_adjustments(run.db, second.id) == [
        ("vehicle_removal_credit", old_camry.id, date(2026, 4, 24), 14_220, 14_220, 0)
    ]
    account = run.db.get(BillingAccount, account_of(second).id)
    assert (account.past_due_cents, account.delinquency_status, account.balance_cents) == (0, "current", 14_180)
    assert run.db.get(Bill, june.id).paid_cents == 20
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


@pytest.mark.two_requests
def test_case_AI013_004(tb):
    """Sold car with no premium share of its own: removed from the sale date with no credit, whatever the customer
    expects back; the declarations page she asks for is sent.
    Rules combined: removal from the sale date (4 days, no claims), no credit for a vehicle whose term premium is 0,
    a declarations page sent only because the customer asks for it."""
    priya, policy = policyholder("Priya Lindqvist", "GA")
    escape = car_on(policy, "1FMCU9GD0MU310442", 2021, "Ford", "Escape", date(2021, 2, 11), 0)
    ticket = ticket_about(policy, "Sold the Escape")

    run = tb.run(
        User(
            says="Two things: I sold the Escape on Friday the 8th, so please take it off and refund whatever I've "
            "paid for it. And could you email me the declarations page once it's updated? My lender wants it.",
            knows=policyholder_facts(priya, policy, **{"sale date": "8 May 2026"}),
        ),
        golden=[
            *opening(priya, policy, policy_claims(policy)),
            remove_vehicle(policy, escape, "2026-05-08"),
            call("send_document", policy_id=policy.id, kind="declarations_page"),
            solved(ticket.id, "vehicle"),
        ],
        traps=[vehicle_credit(policy, escape, 47_618, "2026-05-08")],
        reply="The Escape is off your policy from 8 May 2026, the sale date, and I've emailed you the declarations "
        "page. There is no refund for it: the Escape had no premium of its own on your policy, so removing it "
        "credits nothing.",
    )

    run.expect_golden()
    assert removal(run.db, escape) == ("removed", date(2026, 5, 8))
    assert premium_adjustments(run.db, policy.id) == []  # policy: a vehicle with no premium of its own gets no credit
    docs = run.db.query(Document).filter_by(policy_id=policy.id).all()
    assert [(d.kind, d.vehicle_id) for d in docs] == [("declarations_page", None)]
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


@pytest.mark.two_requests
def test_case_AI013_005(tb):
    """Two cars to take off: the Escape is in an open major claim (not a total loss), so it stays and the request is
    held for claims; the Model 3 sold 11 days ago comes off from the sale date with its credit refunded.
    Rules combined: the open-major-claim block on removal, the sale-date rule and credit for the other vehicle, the
    ticket taking the held request's status, reason and queue."""
    marcus, policy = policyholder("Marcus Oyelaran", "CO", account__pay_plan="paid_in_full")
    escape = car_on(policy, "1FMCU9GD0MU310631", 2021, "Ford", "Escape", date(2021, 5, 30), 27_300)
    tesla = car_on(policy, "5YJ3E1EA0PF402277", 2023, "Tesla", "Model 3", date(2023, 3, 3), 34_800)
    claim = major_claim(
        escape,
        date(2026, 4, 29),
        "Slid into a guardrail on I-70 in sleet; front axle bent, towed to a body shop.",
        damage_cents=690_000,
    )
    ticket = ticket_about(policy, "Two cars off the policy")

    run = tb.run(
        User(
            says="I'm slimming down to one car. The Escape from the guardrail crash is going to the scrapyard as far "
            "as I'm concerned, and I sold the Tesla on May 1st. Take both off, please, and refund what's unused.",
            knows=policyholder_facts(marcus, policy, **{"Tesla sale date": "1 May 2026"}),
        ),
        golden=[
            *opening(marcus, policy, policy_claims(policy)),
            *removal_credit(policy, tesla, "2026-05-01", 17_688),
            *hold(
                ticket.id,
                "vehicle",
                "open_major_claim",
                note=f"Customer asks to remove the 2021 Ford Escape; blocked by open major claim {claim.id} (not "
                "declared a total loss). The Tesla Model 3 was removed from its 1 May sale date and credited.",
            ),
        ],
        traps=[remove_vehicle(policy, escape, derived("2026-05-12", "today"))],
    )

    run.expect_golden()
    assert run.db.get(Vehicle, escape.id).status == "active"  # policy: open major claim, not a total loss
    assert removal(run.db, tesla) == ("removed", date(2026, 5, 1))
    assert premium_adjustments(run.db, policy.id) == [
        ("vehicle_removal_credit", tesla.id, date(2026, 5, 1), 17_688, 0, 17_688)
    ]
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "vehicle", "open_major_claim", "claims")
    assert run.db.query(TicketComment).filter_by(ticket_id=ticket.id).count() == 1


def _behind(customer, missed_amounts):
    """A GA monthly policy scheduled for cancellation on 19 May for non-payment, with an F-150 sold on 1 May."""
    policy = PolicyFactory(
        customer=customer,
        **cancelling(date(2026, 5, 19)),
    )
    for due, amount in missed_amounts:
        BillFactory(account=policy.account, due_on=due, amount_cents=amount, status="missed")
    BillFactory(account=policy.account, due_on=date(2026, 5, 20), amount_cents=13_600)
    truck = car_on(policy, "1FTEW1EP0NKD09544", 2022, "Ford", "F-150", date(2022, 5, 14), 33_500)
    return policy, truck


def test_case_AI013_006(tb):
    """Cancellation for non-payment on 19 May; the customer cannot pay but sold his F-150 on 1 May: it comes off from
    the sale date and its credit (17,027 cents) clears the 13,600 past due, so the cancellation is withdrawn with its
    notice, as if he had paid.
    Rules combined: the sale-date removal, the credit against past-due bills first, a credit that clears the past
    due stopping a scheduled cancellation, the rescission notice, the removal's category."""
    abel = CustomerFactory(name="Abel Okonjo", state="GA")
    policy, truck = _behind(abel, [(date(2026, 4, 20), 13_600)])
    ticket = ticket_about(policy, "Cancellation letter and sold truck")

    run = tb.run(
        User(
            says="I got a letter that my policy gets cancelled on the 19th over April's bill, and I can't pay until "
            "my next paycheck. But I sold my F-150 on May 1st: please take it off, and can whatever comes back for "
            "it go toward what I owe?",
            knows=policyholder_facts(abel, policy, **{"sale date": "1 May 2026"}),
        ),
        golden=[
            *opening(abel, policy, policy_claims(policy), billing_account(policy)),
            *removal_credit(policy, truck, "2026-05-01", 17_027),
            *rescind(policy),
            solved(ticket.id, "vehicle"),
        ],
        reply="The F-150 is off your policy from 1 May 2026. Its unused premium, $170.27, paid April's overdue $136.00 "
        "in full and $34.27 of your May bill, so the cancellation is withdrawn: your policy stays in force, and the "
        "notice is in your email. $101.73 remains on the May bill, due 20 May.",
    )

    run.expect_golden()
    assert removal(run.db, truck) == ("removed", date(2026, 5, 1))
    assert premium_adjustments(run.db, policy.id) == [
        ("vehicle_removal_credit", truck.id, date(2026, 5, 1), 17_027, 17_027, 0)
    ]
    account = run.db.get(BillingAccount, policy.account.id)
    assert (account.past_due_cents, account.balance_cents) == (0, 10_173)
    kept = run.db.get(Policy, policy.id)
    assert (kept.status, kept.cancellation_effective_on) == ("active", None)  # policy: the credit cleared the past due
    docs = run.db.query(Document).filter_by(policy_id=policy.id).all()
    assert [d.kind for d in docs] == ["cancellation_rescission_notice"]
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


def test_case_AI013_007(tb):
    """Same sale, but two bills are past due (27,200 cents): the F-150's credit (17,027) leaves 10,173 past due, so the
    cancellation on 19 May stands; the customer is told what remains and the date.
    Rules combined: the sale-date removal, the credit against past-due bills first, a credit that does not clear the
    past due withdrawing nothing."""
    ruben = CustomerFactory(name="Ruben Mwangi", state="GA")
    policy, truck = _behind(ruben, [(date(2026, 3, 20), 13_600), (date(2026, 4, 20), 13_600)])
    ticket = ticket_about(policy, "Sold truck, behind on bills")

    run = tb.run(
        User(
            says="I'm behind on my bills and got a cancellation letter. I sold my F-150 on May 1st, so take it off "
            "and put whatever I get back for it toward what I owe. Where does that leave the cancellation?",
            knows=policyholder_facts(ruben, policy, **{"sale date": "1 May 2026"}),
        ),
        golden=[
            *opening(ruben, policy, policy_claims(policy), billing_account(policy)),
            *removal_credit(policy, truck, "2026-05-01", 17_027),
            solved(ticket.id, "vehicle"),
        ],
        traps=[call("rescind_cancellation", policy_id=policy.id)],
        reply="The F-150 is off your policy from 1 May 2026, and its unused premium, $170.27, went toward your overdue "
        "bills. That still leaves $101.73 past due, so the cancellation on 19 May 2026 stands unless that is paid "
        "before then.",
    )

    run.expect_golden()
    assert removal(run.db, truck) == ("removed", date(2026, 5, 1))
    assert premium_adjustments(run.db, policy.id) == [
        ("vehicle_removal_credit", truck.id, date(2026, 5, 1), 17_027, 17_027, 0)
    ]
    account = run.db.get(BillingAccount, policy.account.id)
    assert (account.past_due_cents, account.delinquency_status) == (10_173, "past_due")
    kept = run.db.get(Policy, policy.id)
    assert (kept.status, kept.cancellation_effective_on) == ("cancellation_scheduled", date(2026, 5, 19))
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)
    remaining, cancelled_on = remaining_past_due(10_173), cancellation_date(date(2026, 5, 19))
    run.rubric(remaining.text, phrases=remaining.phrases)  # what the policy makes the agent tell him
    run.rubric(cancelled_on.text, phrases=cancelled_on.phrases)


# --------------------------------------------------------------------------- AI016: refunds when cancelling


def test_case_AI016_001(tb):
    """Paid-in-full Texas policy cancelled from 31 May at the customer's request: refund the unearned premium from
    that date (34,733 cents) less Texas's 5,000-cent cancellation fee: 29,733.
    Rules combined: a cancellation on the date asked, a refund only on a paid-in-full plan, the quote from the
    cancellation date, the state's fee taken off."""
    hana, policy = policyholder("Hana Sobczak", "TX", account__pay_plan="paid_in_full")
    ticket = ticket_about(policy, "Cancel at end of May")

    run = tb.run(
        User(
            says="I'm moving in with my partner and we'll share his car, so please cancel my policy from May 31st. "
            "I paid for the full six months, so I'd like the rest back.",
            knows=policyholder_facts(hana, policy, **{"cancellation date": "31 May 2026"}),
        ),
        golden=[
            *opening(hana, policy, billing_account(policy), state_requirements("TX")),
            cancel_at_request(policy, "2026-05-31"),
            quote_unearned(policy, "2026-05-31"),
            cancellation_refund(
                policy, derived(29_733, "unearned 34,733 cents from 31 May less Texas's 5,000-cent fee"), "2026-05-31"
            ),
            solved(ticket.id, "cancellation"),
        ],
        reply="Your policy is cancelled from 31 May 2026. The unused premium from that date is $347.33; Texas "
        "allows a $50.00 cancellation fee, so your refund is $297.33, back to your payment method.",
    )

    run.expect_golden()
    ending = run.db.get(Policy, policy.id)
    assert (ending.status, ending.cancellation_effective_on, ending.cancellation_reason) == (
        "cancellation_scheduled",
        date(2026, 5, 31),
        "customer_request",
    )
    assert premium_adjustments(run.db, policy.id) == [
        ("cancellation_refund", None, date(2026, 5, 31), 29_733, 0, 29_733)
    ]  # policy: unearned premium less the state's fee
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", None, None)


@pytest.mark.pushback
def test_case_AI016_002(tb):
    """California, paid in full, customer wants the cancellation and refund back-dated to 1 May: cancelled from today
    and refunded from today (45,377 cents), with no fee since California allows none.
    Rules combined: no back-dated cancellation, the refund quoted from the real cancellation date, the state's
    zero fee."""
    tomas, policy = policyholder("Tomas Achebe", "CA", account__pay_plan="paid_in_full")
    ticket = ticket_about(policy, "Cancel and refund")

    run = tb.run(
        User(
            says="I started with a new insurer on May 1st and forgot to cancel with you. Cancel my policy as of May "
            "1st and refund me from then, please; I've been double insured for nothing.",
            knows=policyholder_facts(tomas, policy, **{"date asked": "1 May 2026"}),
            persona="A customer who feels he should not pay twice.",
            rules=(
                "If refused, ask once more for the cancellation and refund to start on 1 May.",
                "Then accept the agent's answer if it gives a reason.",
            ),
        ),
        golden=[
            *opening(tomas, policy),
            billing_account(policy),
            state_requirements("CA"),
            cancel_at_request(policy, derived("2026-05-12", "1 May is before today: cancelled from today")),
            quote_unearned(policy, derived("2026-05-12", "the cancellation date")),
            cancellation_refund(policy, 45_377, derived("2026-05-12", "the cancellation date")),
            solved(ticket.id, "cancellation"),
        ],
        traps=[cancellation_refund(policy, 51_540, "2026-05-01")],
    )

    run.expect_golden()
    ending = run.db.get(Policy, policy.id)
    assert (ending.status, ending.cancellation_effective_on) == ("cancellation_scheduled", date(2026, 5, 12))
    assert premium_adjustments(run.db, policy.id) == [
        ("cancellation_refund", None, date(2026, 5, 12), 45_377, 0, 45_377)
    ]  # policy: from today, no California fee
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", None, None)


def test_case_AI016_003(tb):
    """Monthly-plan customer with no open ticket cancels from 15 June and asks what comes back: a new ticket, the
    cancellation on the date asked, and no refund (only paid-in-full policies are refunded at the desk).
    Rules combined: a new ticket only when none is new or open, the cancellation date, no credit on a monthly plan."""
    felix, policy = policyholder("Felix Amundsen", "PA")
    BillFactory(account=policy.account, due_on=date(2026, 4, 18), amount_cents=16_900, status="paid")
    old = ticket_about(policy, "ID card", status="solved")
    new_ticket = new_id("T-", old)

    run = tb.run(
        User(
            says="I'm leaving for a year abroad and want my car policy to end on June 15th. I've paid every bill so "
            "far. Do I get anything back for the part of the term I won't use?",
            knows=policyholder_facts(felix, policy, **{"cancellation date": "15 June 2026"}),
        ),
        golden=[
            *opening(felix, policy, billing_account(policy)),
            create_ticket(felix, policy, "Cancel policy from 15 June", "cancellation"),
            cancel_at_request(policy, "2026-06-15"),
            solved(new_ticket),
        ],
        traps=[cancellation_refund(policy, 26_330, "2026-06-15")],
        reply="Your policy is cancelled from 15 June 2026. You pay monthly, so there is no refund to make: billing "
        "simply stops the bills for the months after the cancellation.",
    )

    run.expect_golden()
    ending = run.db.get(Policy, policy.id)
    assert (ending.status, ending.cancellation_effective_on) == ("cancellation_scheduled", date(2026, 6, 15))
    assert premium_adjustments(run.db, policy.id) == []  # policy: nothing credited on a monthly plan
    assert run.db.get(Ticket, new_ticket).outcome == ("solved", "normal", "cancellation", None, None)
    assert run.db.get(Ticket, new_ticket).policy_id == policy.id
    assert run.db.get(Ticket, old.id).outcome[0] == "solved"


def test_case_AI016_004(tb):
    """Georgia policy ending 31 May, paid in full, cancelled from 30 May: the two days' unearned premium (1,114 cents)
    is less than Georgia's 5,000-cent fee, so nothing is refunded.
    Rules combined: the cancellation date asked, the quote from it, the state's fee as large as the unearned
    premium."""
    leah, policy = policyholder("Leah Okonkwo", "GA", term_start=date(2025, 12, 1), account__pay_plan="paid_in_full")
    ticket = ticket_about(policy, "Switching insurer")

    run = tb.run(
        User(
            says="My new insurance with another company starts on May 30th, so please cancel mine from the 30th and "
            "send back the money for the last couple of days.",
            knows=policyholder_facts(leah, policy, **{"cancellation date": "30 May 2026"}),
        ),
        golden=[
            *opening(leah, policy, billing_account(policy), state_requirements("GA")),
            cancel_at_request(policy, "2026-05-30"),
            quote_unearned(policy, "2026-05-30"),
            solved(ticket.id, "cancellation"),
        ],
        traps=[cancellation_refund(policy, 1_114, "2026-05-30")],
        reply="Your policy is cancelled from 30 May 2026. The unused premium for the last two days is $11.14, which "
        "is less than Georgia's $50.00 cancellation fee, so there is no refund.",
    )

    run.expect_golden()
    ending = run.db.get(Policy, policy.id)
    assert (ending.status, ending.cancellation_effective_on) == ("cancellation_scheduled", date(2026, 5, 30))
    assert premium_adjustments(run.db, policy.id) == []  # policy: the fee is as large as the unearned premium
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", None, None)


def test_case_AI016_005(tb):
    """Sold her only car and asks to take it off, or else cancel from the sale date: the only vehicle stays, the
    fallback cancellation runs from today (not the sale date) and the paid-in-full refund is 45,377 less
    Colorado's 2,500 fee: 42,877. Granted as the fallback, so no reason.
    Rules combined: the last-vehicle rule, a fallback request, no back-dated cancellation, the refund less the
    state's fee, the fallback's category."""
    greta, policy = policyholder("Greta Varga", "CO", account__pay_plan="paid_in_full")
    ticket = ticket_about(policy, "Sold my car")

    run = tb.run(
        User(
            says="I sold my Accord on the 6th and I'm not buying another car. Please take it off my insurance. If "
            "that's not possible, then cancel the whole policy from the day I sold it and refund me.",
            knows=caller_facts(greta, **{"sale date": "6 May 2026"}),
        ),
        golden=[
            *opening_listed(greta, policy, billing_account(policy), state_requirements("CO")),
            cancel_at_request(
                policy, derived("2026-05-12", "the 6 May sale date is before today: cancelled from today")
            ),
            quote_unearned(policy, derived("2026-05-12", "the cancellation date")),
            cancellation_refund(
                policy,
                derived(42_877, "unearned 45,377 cents from today less Colorado's 2,500-cent fee"),
                derived("2026-05-12", "the cancellation date"),
            ),
            solved(ticket.id, "cancellation"),
        ],
        traps=[cancellation_refund(policy, 45_377, "2026-05-12")],
    )

    run.expect_golden()
    assert run.db.get(Vehicle, policy.vehicles[0].id).status == "active"  # policy: the only vehicle stays
    ending = run.db.get(Policy, policy.id)
    assert (ending.status, ending.cancellation_effective_on, ending.cancellation_reason) == (
        "cancellation_scheduled",
        date(2026, 5, 12),
        "customer_request",
    )
    assert premium_adjustments(run.db, policy.id) == [
        ("cancellation_refund", None, date(2026, 5, 12), 42_877, 0, 42_877)
    ]
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", None, None)


@pytest.mark.two_requests
def test_case_AI016_006(tb):
    """Moving abroad, cancelling both policies from 20 May: the Ohio one is paid in full, so it is refunded its
    unearned premium (40,896 cents) less Ohio's 5,000-cent fee; the Pennsylvania one is on monthly bills, so nothing
    is credited on it.
    Rules combined: each policy's cancellation on the date asked, the refund only on a paid-in-full plan, the fee
    of the refunded policy's own state."""
    lena, home = policyholder("Lena Varga", "OH", account__pay_plan="paid_in_full")
    college = PolicyFactory(customer=lena, state="PA")
    ticket = TicketFactory(requester=lena, subject="Cancel both policies")

    run = tb.run(
        User(
            says="We're moving to Portugal, so please cancel both of my car policies, mine here in Ohio and my "
            "daughter's car at college in Pittsburgh, from May 20th. I'd like back whatever I've paid for after "
            "that.",
            knows=caller_facts(lena, **{"cancellation date": "20 May 2026"}),
        ),
        golden=[
            *identify(lena),
            call("list_customer_policies", customer_id=lena.id),
            call("get_policy", policy_id=home.id),
            call("get_policy", policy_id=college.id),
            billing_account(home),
            billing_account(college),
            state_requirements("OH"),
            call("list_tickets", requester_id=lena.id),
            cancel_at_request(home, "2026-05-20"),
            cancel_at_request(college, "2026-05-20"),
            quote_unearned(home, "2026-05-20"),
            cancellation_refund(
                home, derived(35_896, "unearned 40,896 cents from 20 May less Ohio's 5,000-cent fee"), "2026-05-20"
            ),
            solved(ticket.id, "cancellation"),
        ],
        traps=[cancellation_refund(college, 40_896, "2026-05-20")],
        reply="Both policies are cancelled from 20 May 2026. Your Ohio policy was paid in full, so you get back its "
        "unused premium, $408.96, less Ohio's $50.00 cancellation fee: $358.96. Your daughter's Pennsylvania policy "
        "is billed monthly, so there's nothing to refund on it; its bills simply stop.",
    )

    run.expect_golden()
    for policy in (home, college):
        ending = run.db.get(Policy, policy.id)
        assert (ending.status, ending.cancellation_effective_on, ending.cancellation_reason) == (
            "cancellation_scheduled",
            date(2026, 5, 20),
            "customer_request",
        )
    assert premium_adjustments(run.db, home.id) == [("cancellation_refund", None, date(2026, 5, 20), 35_896, 0, 35_896)]
    assert premium_adjustments(run.db, college.id) == []  # policy: monthly plan, nothing credited
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", None, None)
