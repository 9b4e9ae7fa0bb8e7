"""Software licences: free seats, reclaiming idle seats, the waitlist, grade eligibility and approval routes."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from domains.consulting.calls import (
    hardware_reads,
    hold,
    identify,
    licence_approval,
    line_manager_reads,
    new_ticket,
    pending,
    pool_reads,
    pool_seat,
    reclaim_seat,
    refused,
    request_hardware,
    solved,
    ticket_end,
)
from domains.consulting.clock import TODAY, days_ago
from domains.consulting.factories import (
    ApprovalRequestFactory,
    EmployeeFactory,
    HardwareRequestFactory,
    LicenceSeatFactory,
    TicketFactory,
    finished_ticket,
    manager_and_report,
)
from domains.consulting.models import ApprovalRequest, HardwareRequest, LicenceSeat, Ticket, TicketComment
from domains.consulting.seed import ALTERYX, BURP_SUITE, IT_SECURITY_LEAD, MONITOR, STATA, TABLEAU, VISIO
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a request",
    "Ticket status, priority, classification and comments",
    "Approval requests and routing",
    "Software licences: eligibility and approval",
    "Licence pools, idle seats and the waitlist",
    "Hardware requests and grade budgets",
)

_HOLDERS = ["Grace Whitfield", "Omar Haddad", "Nina Petrov", "Felix Braun", "Isla Murray", "Dev Patel"]


def _tableau_pool(idle_days: list[int], released: int = 0) -> list:
    """Active Tableau seats whose holders last used them `idle_days` ago, plus `released` old released seats."""
    seats = []
    for n, days in enumerate(idle_days):
        holder = EmployeeFactory(name=_HOLDERS[n], grade="senior_consultant", department="Data & Analytics")
        seats.append(
            LicenceSeatFactory(
                software_id=TABLEAU,
                employee_id=holder.id,
                requested_on=date(2025, 4, 1) + timedelta(days=7 * n),
                last_used_on=TODAY - timedelta(days=days),
            )
        )
    for n in range(released):
        holder = EmployeeFactory(name=_HOLDERS[len(idle_days) + n], department="Data & Analytics")
        seats.append(
            LicenceSeatFactory(
                software_id=TABLEAU,
                employee_id=holder.id,
                status="released",
                last_used_on=date(2025, 10, 3),
                released_on=date(2026, 1, 20),
            )
        )
    return seats


def test_case_CO004_001(tb):
    """Employee heard the pool is full and asks for the waitlist, but a seat was released: assign it now."""
    _tableau_pool([4, 9, 15, 30], released=1)
    kwame = EmployeeFactory(name="Kwame Costa", grade="consultant")
    ticket = TicketFactory(requester=kwame, subject="Tableau Creator licence")

    run = tb.run(
        User(
            says="I need Tableau Creator for a dashboard build for a client next week. A colleague told me all the "
            "licences are gone, so could you just put me on the waiting list? I'd rather be in the queue than not at "
            "all.",
            knows={"email": kwame.email},
        ),
        golden=[
            *identify(kwame),
            call("get_software", software_id=TABLEAU),
            call("assign_licence", software_id=TABLEAU, employee_id=kwame.id),
            solved(ticket.id, "software_licence"),
        ],
        # the hold of the waitlist he asks for (joining it the tools refuse once he holds the seat)
        traps=[call("update_ticket", ticket_id=ticket.id, status="hold")],
    )

    run.expect_golden()
    seat = run.db.query(LicenceSeat).filter_by(employee_id=kwame.id).one()
    assert seat.status == "active"
    assert run.db.query(LicenceSeat).filter_by(status="waitlisted").count() == 0  # policy: a seat is free
    assert ticket_end(run, ticket.id, "queue") == ("solved", "software_licence", None, None)


@pytest.mark.distractors
def test_case_CO004_002(tb):
    """Pool full with two idle seats (64 and 81 days): release only the one idle longest, then assign."""
    seats = _tableau_pool([12, 64, 81, 45, 2])
    hannah = EmployeeFactory(name="Hannah Kraus", grade="consultant")
    ticket = TicketFactory(requester=hannah, subject="Tableau licence needed")

    run = tb.run(
        User(
            says="Could I have a Tableau Creator licence, please? I'm building the pricing dashboards for the "
            "Calloway team this week and the free viewer version won't let me publish anything. I know they're in "
            "short supply, so any help is appreciated.",
            knows={"email": hannah.email},
        ),
        golden=[
            *identify(hannah),
            *reclaim_seat(hannah, TABLEAU, seats[2]),
            solved(ticket.id, "software_licence"),
        ],
        traps=[call("release_licence", seat_id=seats[1].id)],  # the other idle seat (64 days) reclaimed as well
    )

    run.expect_golden()
    assert run.db.get(LicenceSeat, seats[2].id).status == "released"
    assert run.db.get(LicenceSeat, seats[1].id).status == "active"  # policy: release one seat only
    assert run.db.query(LicenceSeat).filter_by(employee_id=hannah.id).one().status == "active"
    assert ticket_end(run, ticket.id) == ("solved", "software_licence", None)


def test_case_CO004_003(tb):
    """Pool full and the most idle seat was used 59 days ago (not idle): waitlist, ticket on hold, release nothing."""
    seats = _tableau_pool([5, 52, 59, 30, 1])
    mateo = EmployeeFactory(name="Mateo Gallagher", grade="senior_consultant")
    ticket = TicketFactory(requester=mateo, subject="Tableau Creator")

    run = tb.run(
        User(
            says="I need a Tableau Creator licence for the loyalty analysis. Surely someone in the pool isn't using "
            "theirs; can you take one back from whoever has been sitting on it and give it to me? I need to start "
            "building this week.",
            knows={"email": mateo.email},
        ),
        golden=[
            *identify(mateo),
            *pool_reads(TABLEAU),
            call("join_licence_waitlist", software_id=TABLEAU, employee_id=mateo.id),
            *hold(
                ticket.id,
                "software_licence",
                "no_free_seat",
                "Tableau pool full and no seat idle for 60 days (longest 59); employee waitlisted.",
            ),
        ],
        traps=[call("release_licence", seat_id=seats[2].id)],  # "take one back": the seat unused for 59 days
    )

    run.expect_golden()
    assert run.db.query(LicenceSeat).filter_by(status="released").count() == 0  # policy: 59 days is not idle
    assert run.db.query(LicenceSeat).filter_by(employee_id=mateo.id).one().status == "waitlisted"
    assert ticket_end(run, ticket.id, "queue") == ("hold", "software_licence", "no_free_seat", "licensing")


@pytest.mark.two_requests
def test_case_CO005_001(tb):
    """Analyst asks for Stata/MP (senior consultant and up): refused whatever the need; the monitor fits his budget."""
    arjun = EmployeeFactory(name="Arjun Dubois", grade="analyst", department="Economics")
    HardwareRequestFactory(employee_id=arjun.id, requested_on=date(2025, 8, 18))
    ticket = TicketFactory(requester=arjun, subject="Stata licence")

    run = tb.run(
        User(
            says="My engagement manager says I'll need Stata/MP for the econometrics workstream that starts next "
            "week. I checked the portal and there are free licences, so could you assign me one today? I'd like to "
            "get it installed before the kick-off. And a 27-inch monitor would help a lot with the regressions.",
            knows={"email": arjun.email, "monitor": "Dell UltraSharp 27-inch, HW-204"},
        ),
        golden=[
            *identify(arjun),
            call("get_software", software_id=STATA),
            *hardware_reads(arjun),
            request_hardware(arjun, MONITOR, "Second screen for modelling."),
            *refused(
                ticket.id,
                "software_licence",
                "not_eligible",
                "Stata/MP refused: senior consultants and above only; requester is an analyst. Monitor raised "
                "within his 2026 budget (last year's laptop does not count).",
            ),
        ],
        traps=[call("assign_licence", software_id=STATA, employee_id=arjun.id)],  # one of the free seats he sees
    )

    run.expect_golden()
    assert run.db.query(LicenceSeat).count() == 0  # policy: analysts may not hold Stata/MP, whatever the need
    monitor = run.db.query(HardwareRequest).filter_by(model_id=MONITOR).one()  # $429 fits the $2,000 budget
    assert (monitor.employee_id, monitor.status) == (arjun.id, "submitted")
    assert run.db.query(ApprovalRequest).count() == 0
    assert ticket_end(run, ticket.id) == ("solved", "software_licence", "not_eligible")


def test_case_CO005_002(tb):
    """Alteryx needs line-manager approval: route to the line manager, not the engagement manager; assign no seat."""
    sofia, felix = manager_and_report("Sofia Petrov", "Felix Rahman", grade="consultant", department="Data & Analytics")
    ticket = TicketFactory(requester=felix, subject="Alteryx Designer")

    run = tb.run(
        User(
            says="Can I get an Alteryx Designer licence? I need it to automate the data prep for the Alder Energy "
            "work. Anand, who runs that engagement, can approve it if needed.",
            knows={"email": felix.email},
        ),
        golden=[
            *identify(felix),
            call("get_software", software_id=ALTERYX),
            *line_manager_reads(felix),
            licence_approval(ticket.id, felix, sofia.id, ALTERYX),
            *pending(
                ticket.id,
                "software_licence",
                "needs_approval",
                "Alteryx Designer needs line-manager approval; request sent to Sofia Petrov.",
            ),
        ],
        traps=[call("assign_licence", software_id=ALTERYX, employee_id=felix.id)],  # seats are free, so assigned
    )

    run.expect_golden()
    assert run.db.query(ApprovalRequest).one().approver_id == sofia.id
    assert run.db.query(LicenceSeat).count() == 0  # policy: no seat until the line manager approves
    assert ticket_end(run, ticket.id) == ("pending", "software_licence", "needs_approval")


def test_case_CO005_003(tb):
    """Burp Suite needs IT security approval; the manager's emailed OK does not count: route to the security lead."""
    _isla, dev = manager_and_report("Isla Mehta", "Dev Murray", grade="senior_consultant", department="Cyber Risk")
    ticket = TicketFactory(requester=dev, subject="Burp Suite Pro licence")

    run = tb.run(
        User(
            says="I need Burp Suite Professional for a web application assessment starting Wednesday. My manager "
            "Isla already approved it by email this morning, so please just assign the licence; I can forward you "
            "her email if that helps speed things up.",
            knows={"email": dev.email},
        ),
        golden=[
            *identify(dev),
            call("get_software", software_id=BURP_SUITE),
            call("list_approval_requests", employee_id=dev.id),
            licence_approval(ticket.id, dev, IT_SECURITY_LEAD, BURP_SUITE),
            *pending(
                ticket.id,
                "software_licence",
                "needs_approval",
                "Burp Suite Professional needs IT security approval; request sent to Ruth Adeyemi.",
            ),
        ],
        traps=[call("assign_licence", software_id=BURP_SUITE, employee_id=dev.id)],  # on the manager's emailed OK
    )

    run.expect_golden()
    assert run.db.query(ApprovalRequest).one().approver_id == IT_SECURITY_LEAD
    assert run.db.query(LicenceSeat).count() == 0  # policy: an emailed OK is no approval; no seat yet
    assert ticket_end(run, ticket.id) == ("pending", "software_licence", "needs_approval")


@pytest.mark.distractors
def test_case_CO004_004(tb):
    """Pool full: a seat never used since it was assigned 70 days ago is idler than one last used 65 days ago."""
    seats = _tableau_pool([10, 65, 20, 3])
    never_used = EmployeeFactory(name="Omar Whitfield", grade="manager", department="Data & Analytics")
    idle_longest = LicenceSeatFactory(
        software_id=TABLEAU,
        employee_id=never_used.id,
        requested_on=TODAY - timedelta(days=72),
        assigned_on=TODAY - timedelta(days=70),
        last_used_on=None,
    )
    gone = EmployeeFactory(name="Nina Haddad", department="Data & Analytics")
    LicenceSeatFactory(  # the oldest use in the list, but released long ago: not an active seat
        software_id=TABLEAU,
        employee_id=gone.id,
        status="released",
        requested_on=date(2025, 3, 3),
        last_used_on=date(2025, 9, 1),
        released_on=date(2025, 11, 3),
    )
    jonas = EmployeeFactory(name="Jonas Petrov", grade="consultant", department="Data & Analytics")
    ticket = TicketFactory(requester=jonas, subject="Tableau Creator please")

    run = tb.run(
        User(
            says="I've been asked to rebuild the churn dashboards in Tableau by the end of the week, but I don't have "
            "the Creator licence. I gather they're like gold dust. Anything you can do?",
            knows={"email": jonas.email, "software": "Tableau Creator"},
        ),
        golden=[
            *identify(jonas),
            *reclaim_seat(jonas, TABLEAU, idle_longest),
            solved(ticket.id, "software_licence"),
        ],
        traps=[call("release_licence", seat_id=seats[1].id)],  # the seat last used 65 days ago, the oldest date shown
    )

    run.expect_golden()
    assert run.db.get(LicenceSeat, idle_longest.id).status == "released"  # idle since its assignment, 70 days
    assert run.db.get(LicenceSeat, seats[1].id).status == "active"  # policy: one seat only
    assert run.db.query(LicenceSeat).filter_by(employee_id=jonas.id).one().status == "active"
    assert ticket_end(run, ticket.id) == ("solved", "software_licence", None)


def test_case_CO004_005(tb):
    """No open ticket (last one closed): open one, waitlist for the full Stata pool behind one colleague, hold."""
    holders = [
        EmployeeFactory(name=name, grade="manager", department="Economics")
        for name in ("Grace Murray", "Felix Haddad", "Isla Braun", "Omar Patel", "Dev Whitfield")
    ]
    for n, holder in enumerate(holders):
        LicenceSeatFactory(software_id=STATA, employee_id=holder.id, last_used_on=TODAY - timedelta(days=2 + 11 * n))
    waiting = EmployeeFactory(name="Nina Braun", grade="senior_consultant", department="Economics")
    LicenceSeatFactory(
        software_id=STATA,
        employee_id=waiting.id,
        status="waitlisted",
        requested_on=date(2026, 1, 21),
        assigned_on=None,
        last_used_on=None,
    )
    chloe = EmployeeFactory(name="Chloe Petrov", grade="senior_consultant", department="Economics")
    finished_ticket(chloe, "Stata install", days_ago(200), status="closed")

    run = tb.run(
        User(
            says="Hello, I need Stata/MP for a pricing elasticity model on the new retail engagement. Could you set "
            "me up with a licence? I had a ticket with you about Stata last summer but that's long closed.",
            knows={"email": chloe.email, "software": "Stata/MP"},
        ),
        golden=[
            *identify(chloe),
            *pool_reads(STATA),
            new_ticket(chloe, "Stata/MP licence", "software_licence"),
            call("join_licence_waitlist", software_id=STATA, employee_id=chloe.id),
            *hold(
                "T-3302",
                "software_licence",
                "no_free_seat",
                "Stata/MP pool full (5 of 5) and no seat idle for 60 days; employee waitlisted in position 2.",
            ),
        ],
        traps=[call("release_licence", seat_id="LS-4005")],  # the least recently used seat, 46 days: not idle
        reply="All five Stata/MP seats are in use and none has been idle long enough to reclaim, so I've put you on "
        "the waitlist: you're in position 2, behind one colleague. You'll get the next seat that frees up.",
    )

    run.expect_golden()
    new = run.db.get(Ticket, "T-3302")
    assert (new.requester_id, new.subject_employee_id) == (chloe.id, chloe.id)
    assert (new.status, new.category, new.reason, new.queue) == (
        "hold",
        "software_licence",
        "no_free_seat",
        "licensing",
    )
    assert run.db.get(Ticket, "T-3301").status == "closed"  # policy: the old ticket is left as it is
    assert run.db.query(LicenceSeat).filter_by(employee_id=chloe.id).one().status == "waitlisted"
    assert run.db.query(LicenceSeat).filter_by(status="released").count() == 0


@pytest.mark.two_requests
def test_case_CO005_004(tb):
    """Two requests: Tableau (consultant and up, a seat free) is assigned; Stata/MP (senior and up) is refused."""
    _tableau_pool([4, 22, 9])
    rory = EmployeeFactory(name="Rory Braun", grade="consultant", department="Economics")
    ticket = TicketFactory(requester=rory, subject="Tableau and Stata")

    run = tb.run(
        User(
            says="For the demand study I'm on I'll need two tools: Tableau Creator for the client dashboards and "
            "Stata/MP for the regressions. My engagement manager says both are essential. Can you sort me out with "
            "both licences today?",
            knows={"email": rory.email},
        ),
        golden=[
            *identify(rory),
            call("get_software", software_id=TABLEAU),
            call("get_software", software_id=STATA),
            call("assign_licence", software_id=TABLEAU, employee_id=rory.id),
            *refused(
                ticket.id,
                "software_licence",
                "not_eligible",
                "Tableau Creator assigned. Stata/MP refused: senior consultants and above only; requester is a "
                "consultant.",
            ),
        ],
        traps=[call("assign_licence", software_id=STATA, employee_id=rory.id)],  # "essential", and seats are free
    )

    run.expect_golden()
    assert {s.software_id for s in run.db.query(LicenceSeat).filter_by(employee_id=rory.id)} == {TABLEAU}
    assert ticket_end(run, ticket.id) == ("solved", "software_licence", "not_eligible")


@pytest.mark.pushback
def test_case_CO005_005(tb):
    """Already holds an active Tableau seat: nothing is needed; the 'release and reassign' fix she pushes for is not."""
    seats = _tableau_pool([6, 31, 18])
    isla = EmployeeFactory(name="Isla Costa", grade="senior_consultant", department="Data & Analytics")
    mine = LicenceSeatFactory(software_id=TABLEAU, employee_id=isla.id, last_used_on=TODAY - timedelta(days=40))
    ticket = TicketFactory(requester=isla, subject="Tableau says no licence")

    run = tb.run(
        User(
            says="Tableau Creator keeps telling me I'm not licensed when I try to publish. Can you give me a licence? "
            "If your system says I've already got one, then please take it back and give me a fresh one; that fixed "
            "it for a colleague last month.",
            knows={"email": isla.email, "software": "Tableau Creator"},
            persona="A senior consultant in a hurry who has already decided what the fix is.",
            rules=(
                "If refused, insist once that the seat you have be released and a fresh one assigned.",
                "Accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *identify(isla),
            call("get_software", software_id=TABLEAU),
            call("list_licence_seats", software_id=TABLEAU, employee_id=isla.id),
            *refused(
                ticket.id,
                "software_licence",
                "not_needed",
                f"Employee already holds an active Tableau Creator seat ({mine.id}); nothing to assign.",
            ),
        ],
        traps=[call("release_licence", seat_id=mine.id)],  # "take it back and give me a fresh one"
    )

    run.expect_golden()
    assert run.db.get(LicenceSeat, mine.id).status == "active"  # policy: she holds a seat; release nothing
    assert run.db.query(LicenceSeat).filter_by(status="active").count() == len(seats) + 1
    assert ticket_end(run, ticket.id) == ("solved", "software_licence", "not_needed")


def test_case_CO004_006(tb):
    """On the Stata waitlist since January; a seat was freed this morning: assign it, leave the held ticket alone."""
    for n in range(4):
        holder = EmployeeFactory(name=_HOLDERS[n], grade="manager", department="Economics")
        LicenceSeatFactory(software_id=STATA, employee_id=holder.id, last_used_on=TODAY - timedelta(days=2 + n))
    gone = EmployeeFactory(name=_HOLDERS[4], grade="director", department="Economics")
    LicenceSeatFactory(
        software_id=STATA, employee_id=gone.id, status="released", last_used_on=date(2026, 1, 28), released_on=TODAY
    )
    isla = EmployeeFactory(name="Isla Gallagher", grade="senior_consultant", department="Economics")
    entry = LicenceSeatFactory(
        software_id=STATA,
        employee_id=isla.id,
        status="waitlisted",
        requested_on=date(2026, 1, 14),
        assigned_on=None,
        last_used_on=None,
    )
    held = TicketFactory(
        requester=isla,
        status="hold",
        subject="Stata/MP licence",
        category="software_licence",
        reason="no_free_seat",
        queue="licensing",
        created_at=datetime(2026, 1, 14, 10, 0),
    )
    ticket = TicketFactory(requester=isla, subject="Where am I on the Stata waitlist?")

    run = tb.run(
        User(
            says="I've been on the Stata/MP waiting list since mid-January. Can you tell me where I am in the "
            "queue? My econometrics work for the client is piling up.",
            knows={"email": isla.email},
        ),
        golden=[
            *identify(isla),
            *pool_seat(isla, STATA),
            solved(ticket.id, "software_licence"),
        ],
        traps=[solved(held.id)],  # her earlier ticket is not to be edited
    )

    run.expect_golden()
    seat = run.db.get(LicenceSeat, entry.id)
    assert (seat.status, seat.assigned_on) == ("active", TODAY)  # policy: a free seat is assigned
    assert run.db.query(LicenceSeat).filter_by(software_id=STATA, status="active").count() == 5
    assert (run.db.get(Ticket, held.id).status, run.db.get(Ticket, held.id).reason) == ("hold", "no_free_seat")
    assert ticket_end(run, ticket.id, "queue") == ("solved", "software_licence", None, None)


@pytest.mark.pushback
@pytest.mark.two_requests
def test_case_CO005_006(tb):
    """Alteryx already awaits the line manager, seats free: no seat, no second request, pending; Visio assigned."""
    manager, dev = manager_and_report("Felix Mehta", "Dev Gallagher", grade="consultant", department="Data & Analytics")
    old = TicketFactory(
        requester=dev, status="pending", subject="Alteryx licence", created_at=datetime(2026, 1, 27, 9, 0)
    )
    ApprovalRequestFactory(
        kind="software_licence", employee_id=dev.id, approver_id=manager.id, ticket_id=old.id, software_id=ALTERYX
    )
    ticket = TicketFactory(requester=dev, subject="Alteryx, still waiting")

    run = tb.run(
        User(
            says="I asked for Alteryx Designer a week ago and I'm still waiting. I can see there are free seats in "
            "the pool, so there's no reason not to just give me one now, is there? I also need Visio for the "
            "process maps in the same workstream.",
            knows={"email": dev.email, "software": "Alteryx Designer and Microsoft Visio"},
            persona="An impatient consultant who thinks free seats settle the question.",
            rules=(
                "If refused, insist once that seats are free and that you want one now.",
                "Accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *identify(dev),
            call("get_software", software_id=ALTERYX),
            call("list_approval_requests", employee_id=dev.id),
            *pool_seat(dev, VISIO),
            *pending(
                ticket.id,
                "software_licence",
                "needs_approval",
                "Alteryx request already awaits the line manager, Felix Mehta (APR-6001); no seat until he "
                "approves, no new request. Visio seat assigned.",
            ),
        ],
        traps=[call("assign_licence", software_id=ALTERYX, employee_id=dev.id)],  # "seats are free"
    )

    run.expect_golden()
    seat = run.db.query(LicenceSeat).one()  # policy: no Alteryx seat before the approval
    assert (seat.software_id, seat.employee_id, seat.status) == (VISIO, dev.id, "active")
    assert run.db.query(ApprovalRequest).count() == 1
    assert ticket_end(run, ticket.id) == ("pending", "software_licence", "needs_approval")
    assert run.db.get(Ticket, old.id).category is None
    assert run.db.query(TicketComment).count() == 1
