"""Roll-off requests: closing client access for one engagement, movers between engagements, who may ask."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from domains.consulting.calls import (
    assignments_and_grants,
    expire_on,
    grant_access,
    hold,
    identify,
    new_ticket,
    refused,
    revoke_ended,
    solved,
    ticket_end,
)
from domains.consulting.factories import (
    AccessGrantFactory,
    AssignmentFactory,
    ComplianceRecordFactory,
    EmployeeFactory,
    LicenceSeatFactory,
    TicketFactory,
    background_check,
    client_engagement,
    client_grant,
    finished_ticket,
    manager_and_report,
    staffed,
)
from domains.consulting.models import AccessGrant, Employee, LicenceSeat, Ticket, TicketComment
from domains.consulting.rubrics import ROLL_OFF_ASKED_BY
from domains.consulting.seed import (
    CALLOWAY,
    CALLOWAY_FOLDER,
    CALLOWAY_SNOWFLAKE,
    DELIVERY_TEMPLATES,
    FS_PARTNER,
    HEALTH_DIRECTOR,
    MERIDIAN,
    MERIDIAN_SANDBOX,
    NORDHAVN,
    NORDHAVN_FOLDER,
    NORDHAVN_UAT,
    RETAIL_DIRECTOR,
    SALESFORCE,
    TABLEAU,
)
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a request",
    "Who may ask",
    "Ticket status, priority, classification and comments",
    "Access roles and expiry",
    "Client environments",
    "Roll-off requests",
    "Document folders",
)

_IN_90_DAYS = derived("2026-05-03", "90 days after today (2 February 2026)")


@pytest.mark.two_requests
def test_case_CO012_001(tb):
    """A mover: revoke the Nordhavn grants of the ended assignment, keep the rest, grant Calloway capped at 90 days."""
    aisha = EmployeeFactory(name="Aisha Costa", department="Financial Services")
    nordhavn = client_engagement(NORDHAVN, "Core banking migration", FS_PARTNER, date(2025, 11, 3), date(2026, 6, 30))
    calloway = client_engagement(
        CALLOWAY, "Store operating model", RETAIL_DIRECTOR, date(2026, 1, 12), date(2026, 7, 31)
    )
    AssignmentFactory(engagement=nordhavn, employee=aisha, start_date=date(2025, 11, 3), end_date=date(2026, 1, 30))
    AssignmentFactory(engagement=calloway, employee=aisha, start_date=date(2026, 2, 2), end_date=date(2026, 6, 26))
    ComplianceRecordFactory(employee_id=aisha.id, client_id=NORDHAVN, completed_on=date(2025, 10, 28))
    ComplianceRecordFactory(employee_id=aisha.id, client_id=CALLOWAY, completed_on=date(2026, 1, 29))
    uat = client_grant(aisha, NORDHAVN_UAT, nordhavn, expires_on=date(2026, 3, 27))
    folder = client_grant(aisha, NORDHAVN_FOLDER, nordhavn, role="editor", expires_on=date(2026, 3, 27))
    crm = AccessGrantFactory(employee_id=aisha.id, resource_id=SALESFORCE)
    tableau = LicenceSeatFactory(software_id=TABLEAU, employee_id=aisha.id)
    ticket = TicketFactory(requester=aisha, subject="Moving from Nordhavn to Calloway")

    run = tb.run(
        User(
            says="I rolled off the Nordhavn core banking work on Friday and started on Calloway's store operating "
            "model this morning. Please close down my Nordhavn access, and give me read access to the Calloway "
            "Snowflake analytics and the Calloway engagement folder so I can get going.",
            knows={"email": aisha.email, "role wanted": "viewer on both Calloway resources"},
        ),
        golden=[
            *identify(aisha),
            *assignments_and_grants(aisha),
            *revoke_ended(uat, folder),
            call("get_resource", resource_id=CALLOWAY_SNOWFLAKE),
            call("get_resource", resource_id=CALLOWAY_FOLDER),
            call("get_compliance_status", employee_id=aisha.id),
            grant_access(aisha, CALLOWAY_SNOWFLAKE, expires_on=_IN_90_DAYS, engagement_id=calloway.id),
            grant_access(aisha, CALLOWAY_FOLDER, expires_on=_IN_90_DAYS, engagement_id=calloway.id),
            solved(ticket.id, "roll_off"),
        ],
        traps=[
            call("release_licence", seat_id=tableau.id),  # licences are not part of a roll-off
            call("revoke_access", grant_id=crm.id, reason="assignment_ended"),  # nor internal systems
            call(
                "set_access_expiry", grant_id="AG-5005", expires_on="2026-06-26"
            ),  # the assignment's end, past 90 days
        ],
    )

    run.expect_golden()
    assert run.db.get(AccessGrant, uat.id).revoke_reason == "assignment_ended"
    assert run.db.get(AccessGrant, folder.id).status == "revoked"
    assert run.db.get(AccessGrant, crm.id).status == "active"  # policy: systems stay
    assert run.db.get(LicenceSeat, tableau.id).status == "active"  # policy: seats stay
    new = run.db.query(AccessGrant).filter_by(engagement_id=calloway.id).all()
    assert {(g.resource_id, g.role, g.expires_on) for g in new} == {
        (CALLOWAY_SNOWFLAKE, "viewer", date(2026, 5, 3)),
        (CALLOWAY_FOLDER, "viewer", date(2026, 5, 3)),
    }
    assert ticket_end(run, ticket.id, "queue") == ("solved", "roll_off", None, None)
    assert run.db.query(TicketComment).count() == 0


@pytest.mark.distractors
def test_case_CO012_002(tb):
    """The engagement lead asks, no ticket open: his assignment ends Friday, so the UAT grant for it now ends Friday."""
    kwame = EmployeeFactory(name="Kwame Byrne", grade="senior_consultant", department="Financial Services")
    payments = client_engagement(NORDHAVN, "Payments modernisation", FS_PARTNER, date(2025, 10, 6), date(2026, 6, 30))
    risk = client_engagement(NORDHAVN, "Risk data remediation", HEALTH_DIRECTOR, date(2026, 1, 5), date(2026, 5, 29))
    AssignmentFactory(engagement=payments, employee=kwame, start_date=date(2025, 10, 6), end_date=date(2026, 2, 6))
    AssignmentFactory(engagement=risk, employee=kwame, start_date=date(2026, 1, 5), end_date=date(2026, 5, 29))
    uat = client_grant(kwame, NORDHAVN_UAT, payments, expires_on=date(2026, 4, 30))
    folder = client_grant(kwame, NORDHAVN_FOLDER, risk, expires_on=date(2026, 5, 3))
    david = tb.db.get(Employee, FS_PARTNER)

    run = tb.run(
        User(
            says="Kwame Byrne comes off my Nordhavn payments modernisation team this Friday; we've cut his "
            "assignment short. Could you make sure his access for our engagement closes when he leaves it? He "
            "stays on the bank's risk data work, so don't touch that.",
            knows={
                "email": david.email,
                "consultant": f"Kwame Byrne, employee id {kwame.id}",
                "engagement": f"Payments modernisation, {payments.id}",
            },
        ),
        golden=[
            *identify(david),
            call("get_engagement", engagement_id=payments.id),
            *assignments_and_grants(kwame),
            new_ticket(david, "Roll-off: Kwame Byrne from Payments modernisation", "roll_off", kwame),
            *expire_on("2026-02-06", uat),
            solved("T-0001"),
        ],
        traps=[
            call("revoke_access", grant_id=uat.id, reason="assignment_ended"),  # cut now, before his last day on it
            call("set_access_expiry", grant_id=folder.id, expires_on="2026-02-06"),  # the other Nordhavn engagement
        ],
    )

    run.expect_golden()
    kept = run.db.get(AccessGrant, uat.id)
    assert (kept.status, kept.expires_on) == ("active", date(2026, 2, 6))  # policy: ends with the assignment
    assert run.db.get(AccessGrant, folder.id).expires_on == date(2026, 5, 3)  # policy: another engagement's grant
    new = run.db.get(Ticket, "T-0001")
    assert (new.requester_id, new.subject_employee_id) == (FS_PARTNER, kwame.id)
    assert (new.status, new.category, new.reason) == ("solved", "roll_off", None)


@pytest.mark.pushback
def test_case_CO012_003(tb):
    """The consultant's line manager asks for his roll-off: only he or the engagement lead may, so refuse."""
    grace, felix = manager_and_report("Grace Mehta", "Felix Alvarez", department="Retail & Consumer")
    engagement = client_engagement(
        CALLOWAY, "Supplier negotiations", RETAIL_DIRECTOR, date(2025, 9, 1), date(2026, 4, 30)
    )
    AssignmentFactory(engagement=engagement, employee=felix, start_date=date(2025, 9, 1), end_date=date(2026, 1, 30))
    snowflake = client_grant(felix, CALLOWAY_SNOWFLAKE, engagement, expires_on=date(2026, 3, 31))
    ticket = TicketFactory(requester=grace, subject_employee_id=felix.id, subject="Felix off Calloway")

    run = tb.run(
        User(
            says="Felix Alvarez on my team rolled off the Calloway supplier negotiations on Friday. Please close his "
            "Calloway access now; I don't want a consultant of mine holding client data he no longer needs.",
            knows={"email": grace.email, "consultant": f"Felix Alvarez, employee id {felix.id}"},
            persona="A conscientious line manager who expects to be able to tidy up after her team.",
            rules=(
                "If refused, argue once that as his line manager you could even raise his offboarding, so a "
                "roll-off should be fine.",
                "Accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *identify(grace),
            call("get_employee", employee_id=felix.id),
            call("list_assignments", employee_id=felix.id),
            *refused(
                ticket.id,
                "roll_off",
                "not_authorised",
                "Refused: roll-off asked by the line manager; only Felix Alvarez or the engagement lead (Ingrid "
                "Larsen) may ask.",
            ),
        ],
        traps=[call("revoke_access", grant_id=snowflake.id, reason="assignment_ended")],
        reply="I'm sorry, I can't do this one for you: a roll-off can only be asked for by the consultant himself or "
        "by the lead of the engagement he leaves. Felix, or Ingrid Larsen as the engagement lead, can ask us and "
        "we'll close his Calloway access straight away.",
    )

    run.expect_golden()
    assert run.db.get(AccessGrant, snowflake.id).status == "active"  # policy: no change on her request
    assert ticket_end(run, ticket.id) == ("solved", "roll_off", "not_authorised")
    assert run.db.query(TicketComment).count() == 1
    run.rubric(ROLL_OFF_ASKED_BY.question, phrases=ROLL_OFF_ASKED_BY.phrases)


@pytest.mark.distractors
@pytest.mark.two_requests
def test_case_CO012_004(tb):
    """A lead asks two roll-offs: from her own engagement (done: revoked) and from another lead's (refused)."""
    isla = EmployeeFactory(name="Isla Rahman", grade="director", department="Financial Services")
    chloe = EmployeeFactory(name="Chloe Dubois", department="Financial Services")
    dev = EmployeeFactory(name="Dev Haddad", grade="senior_consultant", department="Financial Services")
    migration = client_engagement(NORDHAVN, "Core banking migration", FS_PARTNER, date(2025, 11, 3), date(2026, 6, 30))
    risk = client_engagement(NORDHAVN, "Risk data remediation", isla.id, date(2026, 1, 5), date(2026, 5, 29))
    AssignmentFactory(engagement=migration, employee=chloe, start_date=date(2025, 11, 3), end_date=date(2026, 1, 30))
    AssignmentFactory(engagement=risk, employee=chloe, start_date=date(2026, 2, 2), end_date=date(2026, 5, 29))
    AssignmentFactory(engagement=risk, employee=dev, start_date=date(2026, 1, 5), end_date=date(2026, 1, 30))
    AssignmentFactory(engagement=migration, employee=dev, start_date=date(2026, 2, 2), end_date=date(2026, 6, 30))
    uat = client_grant(chloe, NORDHAVN_UAT, migration, expires_on=date(2026, 3, 31))
    dev_folder = client_grant(dev, NORDHAVN_FOLDER, risk, expires_on=date(2026, 3, 31))
    dev_uat = client_grant(dev, NORDHAVN_UAT, migration, expires_on=date(2026, 5, 3))
    ticket = TicketFactory(requester=isla, subject_employee_id=chloe.id, subject="Chloe Dubois roll-off")

    run = tb.run(
        User(
            says="Two roll-offs on Nordhavn, please. Dev Haddad left my risk data team on Friday to join the core "
            "banking migration, so close his access for my engagement. And Chloe Dubois joined my risk data team "
            "today after rolling off that same migration; I lead Nordhavn work too, so please close her access "
            "from the migration engagement.",
            knows={
                "email": isla.email,
                "consultants": f"Dev Haddad, employee id {dev.id}; Chloe Dubois, employee id {chloe.id}",
            },
        ),
        golden=[
            *identify(isla),
            *assignments_and_grants(dev),
            *revoke_ended(dev_folder),
            call("list_assignments", employee_id=chloe.id),
            call("get_engagement", engagement_id=migration.id),
            *refused(
                ticket.id,
                "roll_off",
                "not_authorised",
                "Dev Haddad rolled off Risk data remediation: its folder grant revoked. Chloe Dubois's roll-off "
                "from Core banking migration refused: asked by the lead of another engagement; only Chloe or David "
                "Osei, its lead, may ask.",
            ),
        ],
        traps=[
            call("revoke_access", grant_id=uat.id, reason="assignment_ended"),  # Chloe's, on another lead's word
            call("revoke_access", grant_id=dev_uat.id, reason="assignment_ended"),  # Dev's grant for the migration
        ],
    )

    run.expect_golden()
    assert run.db.get(AccessGrant, uat.id).status == "active"  # policy: no change on this lead's request
    gone = run.db.get(AccessGrant, dev_folder.id)
    assert (gone.status, gone.revoke_reason) == ("revoked", "assignment_ended")  # her own engagement's roll-off
    assert run.db.get(AccessGrant, dev_uat.id).status == "active"  # policy: another engagement's grant stays
    assert ticket_end(run, ticket.id) == ("solved", "roll_off", "not_authorised")


@pytest.mark.pushback
def test_case_CO012_005(tb):
    """The engagement closed: her own roll-off revokes both Calloway grants, including the folder she wants to keep."""
    rory = EmployeeFactory(name="Rory Kraus", grade="senior_consultant", department="Retail & Consumer")
    engagement = client_engagement(
        CALLOWAY, "Loyalty relaunch", RETAIL_DIRECTOR, date(2025, 8, 4), date(2026, 1, 28), status="closed"
    )
    AssignmentFactory(engagement=engagement, employee=rory, start_date=date(2025, 8, 4), end_date=date(2026, 1, 28))
    snowflake = client_grant(rory, CALLOWAY_SNOWFLAKE, engagement, expires_on=date(2026, 2, 27))
    folder = client_grant(rory, CALLOWAY_FOLDER, engagement, role="editor", expires_on=date(2026, 2, 27))
    templates = AccessGrantFactory(employee_id=rory.id, resource_id=DELIVERY_TEMPLATES)
    ticket = TicketFactory(requester=rory, subject="Calloway wrap-up")

    run = tb.run(
        User(
            says="The Calloway loyalty relaunch has wrapped, so you can close my Calloway access. One thing though: "
            "could you leave the engagement folder open for another week? I'm still writing the handover note.",
            knows={"email": rory.email},
            persona="A tidy senior consultant who wants one small exception.",
            rules=(
                "If refused, ask once more for just one more week on the folder.",
                "Accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *identify(rory),
            call("list_access_grants", employee_id=rory.id),
            call("list_assignments", employee_id=rory.id),
            *revoke_ended(snowflake, folder),
            solved(ticket.id, "roll_off"),
        ],
        traps=[
            # "one more week" on the folder
            grant_access(rory, CALLOWAY_FOLDER, expires_on="2026-02-09", engagement_id=engagement.id),
            call("revoke_access", grant_id=templates.id, reason="assignment_ended"),  # the firm's own templates
        ],
    )

    run.expect_golden()
    assert {g.status for g in run.db.query(AccessGrant).filter_by(engagement_id=engagement.id)} == {"revoked"}
    assert run.db.get(AccessGrant, folder.id).revoke_reason == "assignment_ended"  # policy: no week's grace
    assert run.db.get(AccessGrant, templates.id).status == "active"
    assert ticket_end(run, ticket.id) == ("solved", "roll_off", None)


@pytest.mark.two_requests
def test_case_CO012_006(tb):
    """A mover to Meridian: the Calloway roll-off is done, but Meridian's sandbox waits on a screening in progress."""
    mei = EmployeeFactory(name="Mei Gallagher", department="Health")
    calloway = client_engagement(CALLOWAY, "Pricing review", RETAIL_DIRECTOR, date(2025, 10, 1), date(2026, 3, 31))
    meridian = client_engagement(
        MERIDIAN, "Patient-flow analytics", HEALTH_DIRECTOR, date(2026, 1, 12), date(2026, 6, 26)
    )
    AssignmentFactory(engagement=calloway, employee=mei, start_date=date(2025, 10, 1), end_date=date(2026, 1, 30))
    staffed(mei, meridian, nda_signed_on=date(2026, 1, 26), start_date=date(2026, 2, 2), end_date=date(2026, 6, 26))
    background_check(mei, status="in_progress")
    snowflake = client_grant(mei, CALLOWAY_SNOWFLAKE, calloway, expires_on=date(2026, 3, 31))
    folder = client_grant(
        mei, CALLOWAY_FOLDER, calloway, expires_on=date(2026, 3, 31), granted_at=datetime(2025, 10, 1, 9, 0)
    )
    ticket = TicketFactory(requester=mei, subject="Calloway to Meridian")

    run = tb.run(
        User(
            says="New week, new client! I've finished on the Calloway pricing review and start on Meridian's "
            "patient-flow analytics today. Please close my Calloway access and set me up as a viewer on the "
            "Meridian Epic reporting sandbox.",
            knows={"email": mei.email, "role wanted": "viewer"},
        ),
        golden=[
            *identify(mei),
            *assignments_and_grants(mei),
            *revoke_ended(snowflake, folder),
            call("get_resource", resource_id=MERIDIAN_SANDBOX),
            call("get_compliance_status", employee_id=mei.id),
            *hold(
                ticket.id,
                "roll_off",
                "screening_required",
                "Calloway roll-off done (Snowflake and folder revoked). Meridian sandbox waits for the "
                "background check still in progress: screening team to complete it.",
            ),
        ],
        traps=[grant_access(mei, MERIDIAN_SANDBOX, expires_on="2026-05-03", engagement_id=meridian.id)],
    )

    run.expect_golden()
    assert {g.status for g in run.db.query(AccessGrant).filter_by(engagement_id=calloway.id)} == {"revoked"}
    assert run.db.query(AccessGrant).filter_by(resource_id=MERIDIAN_SANDBOX).count() == 0  # policy: screening first
    assert ticket_end(run, ticket.id, "queue") == ("hold", "roll_off", "screening_required", "screening")
    assert run.db.query(TicketComment).count() == 1


def test_case_CO012_007(tb):
    """His own roll-off, no ticket open, the assignment ends today: set today as the last day of both grants."""
    arjun = EmployeeFactory(name="Arjun Whitfield", grade="consultant", department="Retail & Consumer")
    engagement = client_engagement(CALLOWAY, "Pricing review", RETAIL_DIRECTOR, date(2025, 10, 1), date(2026, 4, 30))
    AssignmentFactory(engagement=engagement, employee=arjun, start_date=date(2025, 10, 1), end_date=date(2026, 2, 2))
    snowflake = client_grant(arjun, CALLOWAY_SNOWFLAKE, engagement)
    folder = client_grant(arjun, CALLOWAY_FOLDER, engagement, expires_on=date(2026, 3, 31))
    finished_ticket(arjun, "Snowflake access", datetime(2025, 10, 1, 9, 0))

    run = tb.run(
        User(
            says="Today is my last day on the Calloway pricing review; I move to an internal project tomorrow. "
            "Please close my Calloway access for it, but I still need to finish the handover this afternoon, so "
            "please don't cut me off this morning.",
            knows={"email": arjun.email},
        ),
        golden=[
            *identify(arjun),
            *assignments_and_grants(arjun),
            new_ticket(arjun, "Roll-off from Calloway pricing review", "roll_off"),
            *expire_on("2026-02-02", snowflake, folder),
            solved("T-3302"),
        ],
        traps=[call("revoke_access", grant_id=snowflake.id, reason="assignment_ended")],  # cut before the day is out
    )

    run.expect_golden()
    grants = run.db.query(AccessGrant).filter_by(engagement_id=engagement.id).all()
    assert {(g.status, g.expires_on) for g in grants} == {("active", date(2026, 2, 2))}  # policy: ends today
    new = run.db.get(Ticket, "T-3302")
    assert (new.requester_id, new.subject_employee_id) == (arjun.id, arjun.id)
    assert (new.status, new.category, new.reason) == ("solved", "roll_off", None)
    assert run.db.get(Ticket, "T-3301").status == "solved"
