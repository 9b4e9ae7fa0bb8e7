"""Starter kits with full licence pools, laptops already asked for, extras outside the kit, and who may ask."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from domains.consulting.calls import (
    assign_licences,
    client_gates,
    grant_access,
    hold,
    identify,
    kit_access,
    kit_reads,
    refused,
    request_hardware,
    solved,
    starter_laptop,
    ticket_end,
)
from domains.consulting.clock import TODAY
from domains.consulting.factories import (
    AccessGrantFactory,
    EmployeeFactory,
    HardwareRequestFactory,
    LicenceSeatFactory,
    TicketFactory,
    client_engagement,
    manager_and_report,
    staffed,
)
from domains.consulting.models import (
    AccessGrant,
    Employee,
    Engagement,
    HardwareRequest,
    LicenceSeat,
    TicketComment,
)
from domains.consulting.rubrics import CHLOE_ASKS_FOR_HER_ACCESS, STARTER_KIT_ASKED_BY
from domains.consulting.seed import (
    ACROBAT,
    CALLOWAY,
    CALLOWAY_SNOWFLAKE,
    DELIVERY_TEMPLATES,
    MACBOOK_PRO,
    PEOPLE_PARTNER,
    PROPOSAL_TEMPLATES,
    RETAIL_DIRECTOR,
    STANDARD_LAPTOP,
    THINK_CELL,
    TIMESHEETS,
    WORKDAY,
)
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a request",
    "Who may ask",
    "Ticket status, priority, classification and comments",
    "Licence pools, idle seats and the waitlist",
    "Joiners",
)

_KIT_ACCESS = {WORKDAY, TIMESHEETS, PROPOSAL_TEMPLATES, DELIVERY_TEMPLATES}


def _full_acrobat_pool(idle: dict[int, tuple[int, bool]] | None = None) -> dict[int, LicenceSeat]:
    """Fill the 30-seat Acrobat pool. `idle` maps a seat's position to (days since the date that counts, never
    used?); every other seat was used three days ago."""
    idle = idle or {}
    seats = {}
    for n in range(30):
        days, never_used = idle.get(n, (3, False))
        since = TODAY - timedelta(days=days)
        if never_used:
            seats[n] = LicenceSeatFactory(software_id=ACROBAT, requested_on=since, assigned_on=since, last_used_on=None)
        else:
            seats[n] = LicenceSeatFactory(
                software_id=ACROBAT, requested_on=date(2025, 1, 6), assigned_on=date(2025, 1, 6), last_used_on=since
            )
    return seats


def _calloway_joiner(name: str, manager: Employee, assignment_end: date) -> tuple[Employee, Engagement]:
    """An analyst who joined `manager`'s Retail & Consumer team on 26 January, staffed from that day to
    `assignment_end` on Calloway's store operating model, with the Calloway NDA signed on day one."""
    joiner = EmployeeFactory(
        name=name, grade="analyst", department="Retail & Consumer", manager_id=manager.id, start_date=date(2026, 1, 26)
    )
    engagement = client_engagement(
        CALLOWAY, "Store operating model", RETAIL_DIRECTOR, date(2026, 1, 12), date(2026, 7, 31)
    )
    staffed(joiner, engagement, nda_signed_on=date(2026, 1, 26), start_date=date(2026, 1, 26), end_date=assignment_end)
    return joiner, engagement


@pytest.mark.distractors
def test_case_CO014_001(tb):
    """People asks; Acrobat is full: reclaim the seat idle longest (never used, 84 days), give the rest."""
    seats = _full_acrobat_pool({4: (74, False), 11: (84, True), 19: (63, False)})
    coordinator = EmployeeFactory(
        name="Kwame Haddad", grade="analyst", department="People", title="People Coordinator", manager_id=PEOPLE_PARTNER
    )
    _manager, joiner = manager_and_report(
        "Nina Gallagher", "Sofia Mensah", grade="consultant", department="Digital", start_date=TODAY
    )
    ticket = TicketFactory(requester=coordinator, subject_employee_id=joiner.id, subject="Starter kit: Sofia Mensah")

    run = tb.run(
        User(
            says="Hello, People team here. Sofia Mensah starts in Digital today. Could you give her the full "
            "starter kit, please? Her manager Nina is travelling, so I'm raising it for her.",
            knows={"email": coordinator.email, "joiner": f"Sofia Mensah, employee id {joiner.id}"},
        ),
        golden=[
            *identify(coordinator),
            *kit_reads(joiner),
            *kit_access(joiner, WORKDAY, TIMESHEETS, PROPOSAL_TEMPLATES, DELIVERY_TEMPLATES),
            *assign_licences(joiner, THINK_CELL),
            call("list_licence_seats", software_id=ACROBAT),
            call("release_licence", seat_id=seats[11].id),
            *assign_licences(joiner, ACROBAT),
            starter_laptop(joiner),
            solved(ticket.id, "joiner"),
        ],
        traps=[call("release_licence", seat_id=seats[4].id)],  # last used 74 days ago: idle, but not the longest
    )

    run.expect_golden()
    released = run.db.query(LicenceSeat).filter_by(software_id=ACROBAT, status="released").all()
    assert [s.id for s in released] == [seats[11].id]  # policy: only the seat idle longest
    mine = run.db.query(LicenceSeat).filter_by(employee_id=joiner.id, status="active").all()
    assert {s.software_id for s in mine} == {THINK_CELL, ACROBAT}
    assert {g.resource_id for g in run.db.query(AccessGrant).filter_by(employee_id=joiner.id)} == _KIT_ACCESS
    assert run.db.query(HardwareRequest).filter_by(employee_id=joiner.id).one().model_id == STANDARD_LAPTOP
    assert ticket_end(run, ticket.id, "queue") == ("solved", "joiner", None, None)


def test_case_CO014_002(tb):
    """Acrobat is full, no seat idle 60 days: give the rest of the kit, waitlist Acrobat and hold for licensing."""
    seats = _full_acrobat_pool({7: (59, False), 22: (45, True)})
    manager, joiner = manager_and_report(
        "Ingrid Mehta",
        "Jonas Alvarez",
        manager_grade="director",
        grade="senior_consultant",
        department="Health",
        start_date=date(2026, 1, 29),
    )
    AccessGrantFactory(employee_id=joiner.id, resource_id=WORKDAY)
    ticket = TicketFactory(requester=manager, subject_employee_id=joiner.id, subject="Jonas Alvarez set-up")

    run = tb.run(
        User(
            says="Jonas Alvarez joined my Health team last Thursday and still only has Workday. Can you sort out "
            "the rest of his new-starter set-up today? He needs to edit PDFs for a client submission this week.",
            knows={"email": manager.email, "joiner": f"Jonas Alvarez, employee id {joiner.id}"},
        ),
        golden=[
            *identify(manager),
            *kit_reads(joiner),
            *kit_access(joiner, TIMESHEETS, PROPOSAL_TEMPLATES, DELIVERY_TEMPLATES),
            *assign_licences(joiner, THINK_CELL),
            call("list_licence_seats", software_id=ACROBAT),
            call("join_licence_waitlist", software_id=ACROBAT, employee_id=joiner.id),
            starter_laptop(joiner),
            *hold(
                ticket.id,
                "joiner",
                "no_free_seat",
                "Starter kit given except Adobe Acrobat Pro: pool full and no seat idle 60 days or more; joiner "
                "waitlisted for the next seat.",
            ),
        ],
        traps=[call("release_licence", seat_id=seats[7].id)],  # used 59 days ago: not idle yet
    )

    run.expect_golden()
    assert run.db.query(LicenceSeat).filter_by(software_id=ACROBAT, status="released").count() == 0
    entry = run.db.query(LicenceSeat).filter_by(employee_id=joiner.id, software_id=ACROBAT).one()
    assert entry.status == "waitlisted"
    assert run.db.query(LicenceSeat).filter_by(employee_id=joiner.id, software_id=THINK_CELL).one().status == "active"
    assert {g.resource_id for g in run.db.query(AccessGrant).filter_by(employee_id=joiner.id)} == _KIT_ACCESS
    assert run.db.query(HardwareRequest).filter_by(employee_id=joiner.id).count() == 1
    assert ticket_end(run, ticket.id, "queue") == ("hold", "joiner", "no_free_seat", "licensing")
    assert run.db.query(TicketComment).count() == 1


@pytest.mark.two_requests
def test_case_CO014_003(tb):
    """The manager asks for the kit and Calloway access for his joiner: the kit is given, client access refused."""
    manager = EmployeeFactory(name="Mateo Dubois", grade="manager", department="Retail & Consumer")
    joiner, engagement = _calloway_joiner("Chloe Haddad", manager, date(2026, 6, 26))
    AccessGrantFactory(employee_id=joiner.id, resource_id=TIMESHEETS)
    LicenceSeatFactory(software_id=THINK_CELL, employee_id=joiner.id, requested_on=date(2026, 1, 26))
    ticket = TicketFactory(requester=manager, subject_employee_id=joiner.id, subject="Chloe Haddad onboarding")

    run = tb.run(
        User(
            says="Chloe Haddad joined my team a week ago and is only half set up. Please finish her new-starter "
            "kit, and while you're at it give her read access to the Calloway Snowflake analytics: she's staffed "
            "on our Calloway store work and her NDA is signed.",
            knows={"email": manager.email, "joiner": f"Chloe Haddad, employee id {joiner.id}"},
        ),
        golden=[
            *identify(manager),
            *kit_reads(joiner),
            *kit_access(joiner, WORKDAY, PROPOSAL_TEMPLATES, DELIVERY_TEMPLATES),
            *assign_licences(joiner, ACROBAT),
            starter_laptop(joiner),
            *refused(
                ticket.id,
                "joiner",
                "not_authorised",
                "Starter kit completed. Calloway Snowflake access refused: client access is not part of the "
                "kit and only Chloe Haddad may ask for it.",
            ),
        ],
        traps=[grant_access(joiner, CALLOWAY_SNOWFLAKE, expires_on="2026-05-03", engagement_id=engagement.id)],
        reply="Chloe's starter kit is now complete. I can't add the Calloway Snowflake access on your request, "
        "though: client access isn't part of the starter kit, so Chloe needs to ask for it herself, and it will be "
        "checked under the client access rules then.",
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).filter_by(resource_id=CALLOWAY_SNOWFLAKE).count() == 0  # policy: only she asks
    assert {g.resource_id for g in run.db.query(AccessGrant).filter_by(employee_id=joiner.id)} == _KIT_ACCESS
    assert run.db.query(LicenceSeat).filter_by(employee_id=joiner.id, status="active").count() == 2
    assert ticket_end(run, ticket.id) == ("solved", "joiner", "not_authorised")
    run.rubric(CHLOE_ASKS_FOR_HER_ACCESS.question, phrases=CHLOE_ASKS_FOR_HER_ACCESS.phrases)


@pytest.mark.pushback
def test_case_CO014_004(tb):
    """The joiner's skip-level director asks for the kit: not the line manager nor People, so refuse, even insisting."""
    director, manager = manager_and_report(
        "Isla Byrne", "Rory Fischer", manager_grade="director", grade="manager", department="Energy"
    )
    joiner = EmployeeFactory(
        name="Arjun Costa", grade="consultant", department="Energy", manager_id=manager.id, start_date=TODAY
    )
    ticket = TicketFactory(requester=director, subject_employee_id=joiner.id, subject="New joiner Arjun Costa")

    run = tb.run(
        User(
            says="Arjun Costa starts in my Energy practice today, in Rory's team. Rory is on a client site all "
            "week, so please give Arjun the standard starter kit on my say-so.",
            knows={"email": director.email, "joiner": f"Arjun Costa, employee id {joiner.id}"},
            persona="A director used to her word being enough.",
            rules=(
                "If refused, point out once that you are Rory's own manager and more senior than him.",
                "Accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *identify(director),
            call("get_employee", employee_id=joiner.id),
            call("get_manager_chain", employee_id=joiner.id),
            *refused(
                ticket.id,
                "joiner",
                "not_authorised",
                "Refused: starter kit asked by the skip-level director; only Arjun Costa, his line manager (Rory "
                "Fischer) or the People team may ask.",
            ),
        ],
        traps=[grant_access(joiner, WORKDAY)],
        reply="I'm sorry, I can't set up Arjun's kit on your request: a starter kit can be asked for only by the "
        "joiner himself, his line manager (Rory) or the People team. Arjun can ask us directly today, or the People "
        "team can raise it.",
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).count() == 0  # policy: nothing on a skip-level's request
    assert run.db.query(LicenceSeat).count() == 0
    assert ticket_end(run, ticket.id) == ("solved", "joiner", "not_authorised")
    run.rubric(STARTER_KIT_ASKED_BY.question, phrases=STARTER_KIT_ASKED_BY.phrases)


def test_case_CO014_005(tb):
    """The joiner asks for her own kit and already has a MacBook request in: that counts as her laptop, no Dell."""
    _manager, joiner = manager_and_report(
        "Hannah Kraus", "Mei Alvarez", grade="senior_consultant", department="Data & Analytics", start_date=TODAY
    )
    macbook = HardwareRequestFactory(
        employee_id=joiner.id,
        model_id=MACBOOK_PRO,
        price_cents=239_900,
        status="submitted",
        requested_on=date(2026, 1, 27),
        reason="Pre-hire request by the hiring manager",
    )
    ticket = TicketFactory(requester=joiner, subject="First day set-up")

    run = tb.run(
        User(
            says="Hi, it's my first day in Data & Analytics. Could you set me up with the usual new-joiner access "
            "and software, and the standard laptop? I'm on a borrowed one right now.",
            knows={"email": joiner.email},
        ),
        golden=[
            *identify(joiner),
            *kit_reads(joiner),
            *kit_access(joiner, WORKDAY, TIMESHEETS, PROPOSAL_TEMPLATES, DELIVERY_TEMPLATES),
            *assign_licences(joiner, THINK_CELL, ACROBAT),
            solved(ticket.id, "joiner"),
        ],
        traps=[request_hardware(joiner, STANDARD_LAPTOP, "Standard starter laptop.")],
    )

    run.expect_golden()
    laptops = run.db.query(HardwareRequest).filter_by(employee_id=joiner.id).all()
    assert [r.id for r in laptops] == [macbook.id]  # policy: the open MacBook request counts as her laptop
    assert {g.resource_id for g in run.db.query(AccessGrant).filter_by(employee_id=joiner.id)} == _KIT_ACCESS
    assert run.db.query(LicenceSeat).filter_by(employee_id=joiner.id, status="active").count() == 2
    assert ticket_end(run, ticket.id, "queue") == ("solved", "joiner", None, None)


@pytest.mark.two_requests
def test_case_CO014_006(tb):
    """The joiner asks herself for the kit and Calloway access: the kit gaps filled, the client viewer given."""
    manager = EmployeeFactory(name="Omar Haddad", grade="manager", department="Retail & Consumer")
    joiner, engagement = _calloway_joiner("Isla Fischer", manager, date(2026, 4, 24))
    AccessGrantFactory(employee_id=joiner.id, resource_id=WORKDAY)
    AccessGrantFactory(employee_id=joiner.id, resource_id=TIMESHEETS)
    LicenceSeatFactory(software_id=ACROBAT, employee_id=joiner.id, requested_on=date(2026, 1, 26))
    HardwareRequestFactory(employee_id=joiner.id, status="delivered", requested_on=date(2026, 1, 19))
    ticket = TicketFactory(requester=joiner, subject="Still missing things")

    run = tb.run(
        User(
            says="I started last Monday and I still can't open the proposal or delivery templates, and think-cell "
            "isn't installed. Could you finish my new-starter set-up? I also need read access to the Calloway "
            "Snowflake analytics: I'm staffed on the store operating model and signed the NDA on day one.",
            knows={"email": joiner.email, "role wanted": "viewer"},
        ),
        golden=[
            *identify(joiner),
            *kit_reads(joiner),
            *kit_access(joiner, PROPOSAL_TEMPLATES, DELIVERY_TEMPLATES),
            *assign_licences(joiner, THINK_CELL),
            *client_gates(joiner, CALLOWAY_SNOWFLAKE),
            grant_access(joiner, CALLOWAY_SNOWFLAKE, expires_on="2026-04-24", engagement_id=engagement.id),
            solved(ticket.id, "joiner"),
        ],
    )

    run.expect_golden()
    grants = {g.resource_id: g for g in run.db.query(AccessGrant).filter_by(employee_id=joiner.id)}
    assert set(grants) == _KIT_ACCESS | {CALLOWAY_SNOWFLAKE}  # policy: she may ask for client access herself
    assert (grants[CALLOWAY_SNOWFLAKE].expires_on, grants[CALLOWAY_SNOWFLAKE].engagement_id) == (
        date(2026, 4, 24),
        engagement.id,
    )
    assert {s.software_id for s in run.db.query(LicenceSeat).filter_by(employee_id=joiner.id)} == {THINK_CELL, ACROBAT}
    assert run.db.query(HardwareRequest).count() == 1  # the delivered laptop counts as given
    assert ticket_end(run, ticket.id, "queue") == ("solved", "joiner", None, None)
    assert run.db.query(TicketComment).count() == 0
