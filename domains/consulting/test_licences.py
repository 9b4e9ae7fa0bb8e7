"""Software licences: free seats, reclaiming idle seats, the waitlist, grade eligibility and approval routes."""

from __future__ import annotations

from datetime import date, timedelta

from domains.consulting.clock import TODAY
from domains.consulting.factories import EmployeeFactory, LicenceSeatFactory, TicketFactory
from domains.consulting.models import ApprovalRequest, LicenceSeat, Ticket
from domains.consulting.seed import ALTERYX, BURP_SUITE, IT_SECURITY_LEAD, STATA, TABLEAU
from pytest_thinkingbox import User, call

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
            says="I need Tableau Creator for a dashboard build. A colleague told me the licences are all gone, so "
            "could you just put me on the waitlist?",
            knows={"email": kwame.email},
        ),
        golden=[
            call("find_employee_by_email", email=kwame.email),
            call("list_tickets", requester_id=kwame.id),
            call("get_software", software_id=TABLEAU),
            call("assign_licence", software_id=TABLEAU, employee_id=kwame.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        # the hold of the waitlist he asks for (joining it the tools refuse once he holds the seat)
        traps=[call("update_ticket", ticket_id=ticket.id, status="hold")],
    )

    run.expect_golden()
    seat = run.db.query(LicenceSeat).filter_by(employee_id=kwame.id).one()
    assert seat.status == "active"
    assert run.db.query(LicenceSeat).filter_by(status="waitlisted").count() == 0  # policy: a seat is free
    assert run.db.get(Ticket, ticket.id).status == "solved"


def test_case_CO004_002(tb):
    """Pool full with two idle seats (64 and 81 days): release only the one idle longest, then assign."""
    seats = _tableau_pool([12, 64, 81, 45, 2])
    hannah = EmployeeFactory(name="Hannah Kraus", grade="consultant")
    ticket = TicketFactory(requester=hannah, subject="Tableau licence needed")

    run = tb.run(
        User(
            says="Could I have a Tableau Creator licence please? I'm building the pricing dashboards for the "
            "Calloway team this week.",
            knows={"email": hannah.email},
        ),
        golden=[
            call("find_employee_by_email", email=hannah.email),
            call("list_tickets", requester_id=hannah.id),
            call("get_software", software_id=TABLEAU),
            call("list_licence_seats", software_id=TABLEAU),
            call("release_licence", seat_id=seats[2].id),
            call("assign_licence", software_id=TABLEAU, employee_id=hannah.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[call("release_licence", seat_id=seats[1].id)],  # the other idle seat (64 days) reclaimed as well
    )

    run.expect_golden()
    assert run.db.get(LicenceSeat, seats[2].id).status == "released"
    assert run.db.get(LicenceSeat, seats[1].id).status == "active"  # policy: release one seat only
    assert run.db.query(LicenceSeat).filter_by(employee_id=hannah.id).one().status == "active"


def test_case_CO004_003(tb):
    """Pool full and the most idle seat was used 59 days ago (not idle): waitlist, ticket on hold, release nothing."""
    seats = _tableau_pool([5, 52, 59, 30, 1])
    mateo = EmployeeFactory(name="Mateo Gallagher", grade="senior_consultant")
    ticket = TicketFactory(requester=mateo, subject="Tableau Creator")

    run = tb.run(
        User(
            says="I need a Tableau Creator seat. Surely someone in the pool isn't using theirs, can you take one "
            "back and give it to me?",
            knows={"email": mateo.email},
        ),
        golden=[
            call("find_employee_by_email", email=mateo.email),
            call("list_tickets", requester_id=mateo.id),
            call("get_software", software_id=TABLEAU),
            call("list_licence_seats", software_id=TABLEAU),
            call("join_licence_waitlist", software_id=TABLEAU, employee_id=mateo.id),
            call("update_ticket", ticket_id=ticket.id, status="hold"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Tableau pool full and no seat idle for 60 days (longest 59); employee waitlisted.",
                public=False,
            ),
        ],
        traps=[call("release_licence", seat_id=seats[2].id)],  # "take one back": the seat unused for 59 days
    )

    run.expect_golden()
    assert run.db.query(LicenceSeat).filter_by(status="released").count() == 0  # policy: 59 days is not idle
    assert run.db.query(LicenceSeat).filter_by(employee_id=mateo.id).one().status == "waitlisted"


def test_case_CO005_001(tb):
    """Analyst asks for Stata/MP (senior consultant and up): refuse whatever the engagement needs, free seats or not."""
    arjun = EmployeeFactory(name="Arjun Dubois", grade="analyst", department="Economics")
    ticket = TicketFactory(requester=arjun, subject="Stata licence")

    run = tb.run(
        User(
            says="My engagement manager says I'll need Stata/MP for the econometrics workstream starting next week. "
            "There are free seats, could you assign me one?",
            knows={"email": arjun.email},
        ),
        golden=[
            call("find_employee_by_email", email=arjun.email),
            call("list_tickets", requester_id=arjun.id),
            call("get_software", software_id=STATA),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Refused: Stata/MP is for senior consultants and above; requester is an analyst.",
                public=False,
            ),
        ],
        traps=[call("assign_licence", software_id=STATA, employee_id=arjun.id)],  # one of the free seats he sees
    )

    run.expect_golden()
    assert run.db.query(LicenceSeat).count() == 0  # policy: analysts may not hold Stata/MP, whatever the need
    assert run.db.get(Ticket, ticket.id).status == "solved"


def test_case_CO005_002(tb):
    """Alteryx needs line-manager approval: route to the line manager, not the engagement manager; assign no seat."""
    sofia = EmployeeFactory(name="Sofia Petrov", grade="manager", department="Data & Analytics")
    felix = EmployeeFactory(name="Felix Rahman", grade="consultant", department="Data & Analytics", manager_id=sofia.id)
    ticket = TicketFactory(requester=felix, subject="Alteryx Designer")

    run = tb.run(
        User(
            says="Can I get an Alteryx Designer licence? I need it to automate the data prep for the Alder Energy "
            "work. Anand, who runs that engagement, can approve it if needed.",
            knows={"email": felix.email},
        ),
        golden=[
            call("find_employee_by_email", email=felix.email),
            call("list_tickets", requester_id=felix.id),
            call("get_software", software_id=ALTERYX),
            call("get_employee", employee_id=felix.id),
            call("list_approval_requests", employee_id=felix.id),
            call(
                "create_approval_request",
                ticket_id=ticket.id,
                kind="software_licence",
                employee_id=felix.id,
                approver_id=sofia.id,
                software_id=ALTERYX,
            ),
            call("update_ticket", ticket_id=ticket.id, status="pending"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Alteryx Designer needs line-manager approval; request sent to Sofia Petrov.",
                public=False,
            ),
        ],
        traps=[call("assign_licence", software_id=ALTERYX, employee_id=felix.id)],  # seats are free, so assigned
    )

    run.expect_golden()
    assert run.db.query(ApprovalRequest).one().approver_id == sofia.id
    assert run.db.query(LicenceSeat).count() == 0  # policy: no seat until the line manager approves


def test_case_CO005_003(tb):
    """Burp Suite needs IT security approval; the manager's emailed OK does not count: route to the security lead."""
    isla = EmployeeFactory(name="Isla Mehta", grade="manager", department="Cyber Risk")
    dev = EmployeeFactory(name="Dev Murray", grade="senior_consultant", department="Cyber Risk", manager_id=isla.id)
    ticket = TicketFactory(requester=dev, subject="Burp Suite Pro licence")

    run = tb.run(
        User(
            says="I need Burp Suite Professional for a web application assessment. My manager Isla already approved "
            "it by email this morning, so please just assign the licence.",
            knows={"email": dev.email},
        ),
        golden=[
            call("find_employee_by_email", email=dev.email),
            call("list_tickets", requester_id=dev.id),
            call("get_software", software_id=BURP_SUITE),
            call("list_approval_requests", employee_id=dev.id),
            call(
                "create_approval_request",
                ticket_id=ticket.id,
                kind="software_licence",
                employee_id=dev.id,
                approver_id=IT_SECURITY_LEAD,
                software_id=BURP_SUITE,
            ),
            call("update_ticket", ticket_id=ticket.id, status="pending"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Burp Suite Professional needs IT security approval; request sent to Ruth Adeyemi.",
                public=False,
            ),
        ],
        traps=[call("assign_licence", software_id=BURP_SUITE, employee_id=dev.id)],  # on the manager's emailed OK
    )

    run.expect_golden()
    assert run.db.query(ApprovalRequest).one().approver_id == IT_SECURITY_LEAD
    assert run.db.query(LicenceSeat).count() == 0  # policy: an emailed OK is no approval; no seat yet
