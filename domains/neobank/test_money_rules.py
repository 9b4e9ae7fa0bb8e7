"""Rules where dates, levels and amounts decide together: the monthly transfer limit at its exact amount, a level
the customer claims, withdrawals at a month's edge, the dispute window of duplicate charges, and the 90- and
180-day goodwill rules at their boundaries."""

from __future__ import annotations

import pytest

from domains.neobank.calls import (
    Payee,
    accounts_of,
    create_ticket,
    create_transfer,
    customer_profile,
    disputes_of,
    fees_of,
    move_money,
    open_dispute,
    opening,
    payee_facts,
    pending,
    refused,
    solved,
    ticket_end,
    transaction_record,
    transactions_of,
    transfers_of,
)
from domains.neobank.clock import days_ago
from domains.neobank.factories import (
    AccountFactory,
    CardFactory,
    DisputeFactory,
    FeeFactory,
    FeeRefundFactory,
    TicketFactory,
    TransactionFactory,
    TransferFactory,
    account_holder,
    at,
    card_replacement_fee,
    finished_ticket,
    goodwill_refunded,
    held_transfer,
    make_iban,
    savings_withdrawal,
)
from domains.neobank.models import Account, Customer, Dispute, Fee, FeeRefund, Hold, Ticket, TicketComment, Transfer
from domains.neobank.seed import BASIC
from domains.shared.identity import caller_facts
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a conversation",
    "KYC levels and limits",
    "Outgoing transfers",
    "Savings accounts and withdrawals",
    "Card disputes",
    "Fees and fee refunds",
    "Tickets: classification, status, priority and comments",
)

# --------------------------------------------------------------------------- NB004 transfers and KYC limits


@pytest.mark.distractors
def test_case_NB004_006(tb):
    """Basic customer, EUR 600: October's completed EUR 1,000 and held EUR 900 (on her second account) plus this
    make exactly EUR 2,500, the monthly limit, which is within it; the rejected and September transfers do not
    count. Send at once."""
    nele, main = account_holder("Nele Brandt", balance_cents=410_000, kyc_level=BASIC)
    shop = AccountFactory(customer=nele, nickname="Etsy shop", balance_cents=230_000)
    TransferFactory(account=main, amount_cents=100_000, created_at=days_ago(11), beneficiary_name="Nele Brandt")
    held_transfer(shop, 90_000, "Stoffwelt GmbH", days_ago(4))
    TransferFactory(
        account=main, amount_cents=60_000, created_at=days_ago(2), status="rejected", beneficiary_name="Foto Kunz"
    )
    TransferFactory(account=shop, amount_cents=95_000, created_at=days_ago(17), beneficiary_name="Stoffwelt GmbH")
    printer = Payee("Druckerei Kunz & Sohn", make_iban("60050101", "7402310988"), "RE-2026-1187")
    ticket = TicketFactory(requester=nele, account=main, subject="Pay the print shop")

    run = tb.run(
        User(
            says="I need to pay 600 euros from my main account to the print shop that makes my shop's catalogues, "
            "with their invoice number as the reference. I've sent quite a lot this month, I hope it still goes "
            "through?",
            knows={**caller_facts(nele), **payee_facts(printer)},
        ),
        golden=[
            *opening(nele, accounts_of(nele), customer_profile(nele), transfers_of(main), transfers_of(shop)),
            create_transfer(main, printer, 60_000, held=False),
            solved(ticket.id, "transfer"),
        ],
        traps=[  # counts the rejected transfer (or September's) and holds it above the monthly limit
            create_transfer(main, printer, 60_000, held=True)
        ],
    )

    run.expect_golden()
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.category, t.reason, t.queue) == ("solved", "transfer", None, None)
    sent = run.db.query(Transfer).filter(Transfer.beneficiary_name == "Druckerei Kunz & Sohn").one()
    # policy: 100,000 + 90,000 held + 60,000 = 250,000, equal to the basic monthly limit, so within it
    assert (sent.status, sent.amount_cents, sent.reference) == ("completed", 60_000, "RE-2026-1187")
    assert run.db.query(Hold).filter(Hold.account_id == main.id).count() == 0
    assert run.db.get(Account, main.id).balance_cents == 410_000 - 60_000


@pytest.mark.pushback
def test_case_NB004_007(tb):
    """The customer says his enhanced verification went through yesterday, but the records still say standard:
    EUR 6,000 is above the standard single limit, so hold it; no open ticket, so create one (transfer, the
    account)."""
    jakob, account = account_holder("Jakob Reuter", balance_cents=1_905_000)
    TransferFactory(account=account, amount_cents=120_000, created_at=days_ago(7), beneficiary_name="Jakob Reuter")
    _, new_id = finished_ticket(jakob, "Upload failed", days_ago(1, hour=9))
    builder = Payee("Holzbau Petersen GmbH", make_iban("76050101", "0011284455"), "Abschlag 2 Dachstuhl")

    run = tb.run(
        User(
            says="I need to pay my builder 6,000 euros today. I uploaded my income documents yesterday and the app "
            "said my enhanced verification is complete, so my limit is 25,000 now. Please send it straight away.",
            knows={**caller_facts(jakob), **payee_facts(builder)},
            rules=("If refused, insist once that you are enhanced now, then accept the answer.",),
        ),
        golden=[
            *opening(jakob, customer_profile(jakob), transfers_of(account)),
            create_ticket(jakob, "Transfer to builder", "transfer", account),
            create_transfer(account, builder, 600_000, held=True),
            *pending(
                new_id,
                None,
                "over_limit",
                "Transfer of 600,000 cents held: above the standard single-transfer limit of 500,000 cents "
                "(records show standard). Waiting for source-of-funds documents.",
                queue="compliance",
            ),
        ],
        reply="Our records still show your verification level as standard, where a single transfer can be at most "
        "EUR 5,000. I've created the EUR 6,000 transfer to Holzbau Petersen, but it is held for review until our "
        "compliance team has checked your source-of-funds documents.",
        traps=[  # believes the customer's "enhanced" and sends it at once
            create_transfer(account, builder, 600_000, held=False)
        ],
    )

    run.expect_golden()
    t = run.db.get(Ticket, new_id)
    assert (t.requester_id, t.account_id, t.category) == (jakob.id, account.id, "transfer")
    assert (t.status, t.reason, t.queue) == ("pending", "over_limit", "compliance")
    transfer = run.db.query(Transfer).filter(Transfer.beneficiary_name == "Holzbau Petersen GmbH").one()
    assert (transfer.status, transfer.amount_cents) == ("held", 600_000)  # policy: the level in the records counts
    assert run.db.get(Account, account.id).balance_cents == 1_905_000
    assert run.db.get(Customer, jakob.id).kyc_level == "standard"


# --------------------------------------------------------------------------- NB005 savings withdrawals


@pytest.mark.two_requests
def test_case_NB005_005(tb):
    """A withdrawal booked late on 30 September is September's: this one is only October's 3rd, so free. The
    EUR 2.50 fee of 30 September (the 4th that month) was right, and its goodwill refund is refused: goodwill
    170 days ago."""
    tobias, current = account_holder("Tobias Wolf", balance_cents=18_450)
    savings = AccountFactory(customer=tobias, kind="savings", balance_cents=402_000)
    for day, amount in ((25, 10_000), (20, 5_000), (18, 7_500)):
        savings_withdrawal(savings, amount, days_ago(day))
    late = savings_withdrawal(savings, 6_000, days_ago(15, hour=23))
    september_fee = FeeFactory(
        account=savings,
        kind="savings_withdrawal",
        amount_cents=250,
        description=f"Withdrawal fee for {late.id}",
        charged_at=days_ago(15, hour=23),
    )
    for day, amount in ((12, 20_000), (5, 8_000)):
        savings_withdrawal(savings, amount, days_ago(day))
    TransactionFactory(
        account=savings, kind="transfer_in", amount_cents=50_000, description="Main account", booked_at=days_ago(3)
    )
    goodwill_refunded(current, "overdraft", 1_500, days_ago(175), days_ago(170))
    ticket = TicketFactory(requester=tobias, subject="Savings withdrawal and fee")

    run = tb.run(
        User(
            says="Please move 150 euros from my savings to my current account. And while you're at it: you charged "
            "me 2.50 for a withdrawal at the end of September. I'd like that back, please, as a goodwill gesture.",
            knows=caller_facts(tobias),
        ),
        golden=[
            *opening(tobias, accounts_of(tobias), fees_of(tobias), transactions_of(savings)),
            move_money(savings, current, 15_000, 0),
            *refused(
                ticket.id,
                "fees",
                "not_eligible",
                "Withdrawal of 15,000 cents done, free (3rd in October). Goodwill refund of the 30 September "
                "withdrawal fee refused: goodwill refund given 170 days ago.",
            ),
        ],
        traps=[call("refund_fee", fee_id=september_fee.id, reason="goodwill")],  # a small fee, so refunds it
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "fees", "not_eligible")
    # policy: 12 and 5 days ago are October's 1st and 2nd; the 23:00 booking of 30 September is September's 4th
    assert run.db.query(Fee).filter(Fee.charged_at >= days_ago(1)).count() == 0
    assert run.db.get(Account, savings.id).balance_cents == 402_000 - 15_000
    assert run.db.get(Account, current.id).balance_cents == 18_450 + 15_000
    assert run.db.query(FeeRefund).filter(FeeRefund.fee_id == september_fee.id).count() == 0


# --------------------------------------------------------------------------- NB007 card disputes


@pytest.mark.distractors
def test_case_NB007_006(tb):
    """Hotel charged EUR 412 twice, 123 and 119 days ago: dispute the later one (inside the 120-day window) as a
    duplicate; the earlier one stands, and its age does not make the dispute late."""
    olga, account = account_holder("Olga Berger", balance_cents=264_300)
    card = CardFactory(account=account)
    first = TransactionFactory(
        card=card, amount_cents=41_200, description="Hotel Alpenrose Garmisch", booked_at=days_ago(123, hour=15)
    )
    second = TransactionFactory(
        card=card, amount_cents=41_200, description="Hotel Alpenrose Garmisch", booked_at=days_ago(119, hour=11)
    )
    TransactionFactory(card=card, amount_cents=3_870, description="Edeka Garmisch", booked_at=days_ago(121, hour=18))
    ticket = TicketFactory(requester=olga, subject="Double charge")

    run = tb.run(
        User(
            says="I stayed at the Hotel Alpenrose in June and paid 412 euros at check-in. Going through my "
            "statements I see they charged me the same 412 euros again a few days later. It was one stay. Can you "
            "get the money back, or is it too long ago now?",
            knows=caller_facts(olga),
        ),
        golden=[
            *opening(olga, accounts_of(olga), transactions_of(account), transaction_record(second)),
            open_dispute(
                second, "duplicate_charge", 41_200, "Hotel Alpenrose charged the same 412 euros twice for one stay."
            ),
            solved(ticket.id, "dispute"),
        ],
        traps=[  # disputes the first payment, which the duplicate rule leaves standing
            open_dispute(first, "duplicate_charge", 41_200, "Double charge.")
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "dispute", None)
    dispute = run.db.query(Dispute).one()  # policy: the later payment, 119 days old, inside the window
    assert (dispute.transaction_id, dispute.reason, dispute.amount_cents) == (second.id, "duplicate_charge", 41_200)


@pytest.mark.pushback
@pytest.mark.two_requests
def test_case_NB007_007(tb):
    """The customer wants a second dispute of the festival tickets whose dispute was lost: one dispute per payment,
    refuse (not_eligible). The camping pass paid with them was never disputed and is inside the window: dispute it
    as not received. The concert payment of the same amount is his own and stays alone."""
    kai, account = account_holder("Kai Brenner", balance_cents=73_900)
    card = CardFactory(account=account)
    festival = TransactionFactory(
        card=card, amount_cents=18_900, description="Eventim Tickets", booked_at=at(days_ago(64), 20, 1)
    )
    camping = TransactionFactory(
        card=card, amount_cents=4_500, description="Eventim Camping", booked_at=at(days_ago(64), 20, 4)
    )
    concert = TransactionFactory(
        card=card, amount_cents=18_900, description="Eventim Tickets", booked_at=days_ago(30, hour=19)
    )
    DisputeFactory(
        transaction=festival,
        reason="not_received",
        status="lost",
        opened_at=days_ago(50),
        description="Festival cancelled, no refund.",
    )
    ticket = TicketFactory(requester=kai, subject="Festival refund")

    run = tb.run(
        User(
            says="Your dispute about my festival tickets was rejected, apparently the organiser claims the festival "
            "took place. It didn't, it was called off because of the storm! Please open the dispute again, this "
            "time as a duplicate or whatever works. And the 45-euro camping pass I bought with the tickets never "
            "came back either, so I want that money too.",
            knows=caller_facts(kai),
            rules=("If refused, insist once that the organiser lied, then accept the answer.",),
        ),
        golden=[
            *opening(kai, disputes_of(kai), transactions_of(account)),
            open_dispute(
                camping, "not_received", 4_500, "Festival called off; camping pass never provided or refunded."
            ),
            *refused(
                ticket.id,
                "dispute",
                "not_eligible",
                "Second dispute of the festival tickets refused: that payment already had a dispute (lost); one "
                "dispute per payment. Camping pass disputed as not received.",
            ),
        ],
        reply="I'm sorry, I can't open another dispute about the festival tickets: each card payment can be disputed "
        "only once, and that dispute has been decided. The camping pass was never disputed, so I've opened a "
        "dispute for the EUR 45.00.",
        traps=[  # opens the "again" dispute on the other Eventim payment of the same amount
            open_dispute(concert, "duplicate_charge", 18_900, "Festival tickets, second attempt.")
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "dispute", "not_eligible")
    new = run.db.query(Dispute).filter(Dispute.transaction_id != festival.id).one()  # none on the concert
    assert (new.transaction_id, new.reason, new.amount_cents) == (camping.id, "not_received", 4_500)
    assert run.db.query(Dispute).filter(Dispute.transaction_id == festival.id).count() == 1  # one per payment
    assert run.db.query(TicketComment).filter(TicketComment.ticket_id == ticket.id).one().public is False


# --------------------------------------------------------------------------- NB008 fee refunds


@pytest.mark.pushback
@pytest.mark.two_requests
def test_case_NB008_007(tb):
    """Goodwill asked for a plan fee: the last goodwill refund was exactly 180 days ago, which still blocks it (the
    charged-in-error refund of last month does not matter); refuse. She also moves money out of savings: October's
    4th withdrawal from that account (September's does not count), so it costs the 250-cent fee. No open ticket:
    create one (fees, the plan fee's account); it takes the refusal's reason."""
    rosa, account = account_holder("Rosa Hahn", balance_cents=41_760)
    savings = AccountFactory(customer=rosa, kind="savings", balance_cents=522_000)
    for amount, booked in [(10_000, days_ago(16)), (20_000, days_ago(12)), (5_000, days_ago(8)), (8_000, days_ago(3))]:
        savings_withdrawal(savings, amount, booked)
    plan_fee = FeeFactory(account=account, kind="monthly_plan", amount_cents=990, charged_at=days_ago(14, hour=6))
    goodwill_refunded(account, "foreign_exchange", 380, days_ago(186), days_ago(180, hour=9))
    FeeRefundFactory(
        fee=FeeFactory(account=account, kind="card_replacement", amount_cents=600, charged_at=days_ago(33)),
        reason="charged_in_error",
        created_at=days_ago(30),
    )
    old, new_id = finished_ticket(rosa, "Card fee", days_ago(30), status="closed")

    run = tb.run(
        User(
            says="I downgraded my plan weeks ago, but you still took 9.90 for Kestrel Plus on the 1st. Could you "
            "refund it as a goodwill gesture? The last time I asked you for anything like that was half a year "
            "ago. And please move 150 euros from my savings to my main account while you're at it.",
            knows=caller_facts(rosa),
            rules=("If refused, argue once that half a year has passed, then accept the answer.",),
        ),
        golden=[
            *opening(rosa),
            fees_of(rosa),
            accounts_of(rosa),
            transactions_of(savings),
            create_ticket(rosa, "Goodwill refund of plan fee", "fees", account),
            move_money(savings, account, 15_000, 250),
            *refused(
                new_id,
                None,
                "not_eligible",
                "Goodwill refund refused: last goodwill refund given 180 days ago, within the 180-day limit. "
                "Savings withdrawal made (4th in October, 2.50 fee).",
            ),
        ],
        traps=[
            call("refund_fee", fee_id=plan_fee.id, reason="goodwill"),  # "half a year" sounds long enough
        ],
    )

    run.expect_golden()
    t = run.db.get(Ticket, new_id)
    assert (t.requester_id, t.account_id) == (rosa.id, account.id)
    assert (t.status, t.category, t.reason) == ("solved", "fees", "not_eligible")
    assert run.db.query(FeeRefund).filter(FeeRefund.fee_id == plan_fee.id).count() == 0  # 180 days still blocks
    fee = run.db.query(Fee).filter(Fee.charged_at >= days_ago(1)).one()  # policy: the 4th withdrawal of October
    assert (fee.account_id, fee.kind, fee.amount_cents) == (savings.id, "savings_withdrawal", 250)
    assert run.db.get(Account, savings.id).balance_cents == 522_000 - 15_000 - 250
    assert run.db.get(Account, account.id).balance_cents == 41_760 + 15_000
    assert run.db.get(Ticket, old.id).status == "closed"


@pytest.mark.distractors
def test_case_NB008_008(tb):
    """Goodwill for the Lisbon ATM fee on the travel account: charged exactly 90 days ago and the last goodwill
    was 181 days ago, so both rules allow it; the Porto fee of 92 days ago is not the one asked about."""
    vera, main = account_holder("Vera Kuhn", balance_cents=88_100)
    travel = AccountFactory(customer=vera, nickname="Travel", balance_cents=12_640)
    lisbon = FeeFactory(
        account=travel,
        kind="atm_withdrawal",
        amount_cents=450,
        description="ATM withdrawal fee Multibanco Lisboa",
        charged_at=days_ago(90, hour=12),
    )
    porto = FeeFactory(
        account=travel,
        kind="atm_withdrawal",
        amount_cents=450,
        description="ATM withdrawal fee Multibanco Porto",
        charged_at=days_ago(92, hour=12),
    )
    FeeFactory(account=main, kind="atm_withdrawal", amount_cents=200, charged_at=days_ago(20))
    goodwill_refunded(main, "overdraft", 1_500, days_ago(190), days_ago(181))
    ticket = TicketFactory(requester=vera, account=travel, subject="ATM fee in Lisbon")

    run = tb.run(
        User(
            says="On my trip to Portugal in July the cash machine in Lisbon charged me a 4.50 fee on my Travel "
            "account. I didn't realise that machine charges extra. Could you refund that one as a goodwill "
            "gesture?",
            knows=caller_facts(vera),
        ),
        golden=[
            *opening(vera, accounts_of(vera), fees_of(vera)),
            call("refund_fee", fee_id=lisbon.id, reason="goodwill"),
            solved(ticket.id, "fees"),
        ],
        traps=[call("refund_fee", fee_id=porto.id, reason="goodwill")],  # the other Multibanco fee of the trip
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "fees", None)
    refund = run.db.query(FeeRefund).filter(FeeRefund.created_at >= days_ago(1)).one()
    # policy: 90 days ago is within the 90 days, and 181 days since the last goodwill refund is enough
    assert (refund.fee_id, refund.reason, refund.amount_cents) == (lisbon.id, "goodwill", 450)
    assert run.db.get(Account, travel.id).balance_cents == 12_640 + 450


def test_case_NB008_009(tb):
    """Goodwill asked for a replacement fee of 100 days ago, with a goodwill refund 30 days ago: both goodwill
    rules would refuse, but the customer is enhanced, so the fee was charged in error: refund it in full."""
    greta, account = account_holder("Greta Sommer", balance_cents=1_204_300, kyc_level="enhanced")
    old_card = CardFactory(
        account=account, status="blocked", block_reason="damaged", blocked_at=days_ago(100, hour=9), last4="9921"
    )
    CardFactory(account=account, replaces=old_card, issued_at=days_ago(100, hour=9), last4="3115")
    replacement_fee = card_replacement_fee(old_card, days_ago(100, hour=9))
    goodwill_refunded(account, "foreign_exchange", 520, days_ago(35), days_ago(30))
    ticket = TicketFactory(requester=greta, subject="Old card fee")

    run = tb.run(
        User(
            says="Going through my summer statements I noticed you charged me 6 euros in July for a new card, after "
            "my old one stopped working. I know it's a while ago and you were kind about a currency fee last "
            "month, but could you refund it as a goodwill gesture anyway?",
            knows=caller_facts(greta),
        ),
        golden=[
            *opening(greta, customer_profile(greta), fees_of(greta)),
            call("refund_fee", fee_id=replacement_fee.id, reason="charged_in_error"),
            solved(ticket.id, "fees"),
        ],
        reply="You don't need a goodwill gesture for this one: replacement cards are free at your enhanced "
        "verification level, so the EUR 6.00 was charged in error. I've refunded it in full.",
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "fees", None)
    refund = run.db.query(FeeRefund).filter(FeeRefund.fee_id == replacement_fee.id).one()
    assert (refund.reason, refund.amount_cents) == ("charged_in_error", 600)  # policy: free for enhanced customers
    assert run.db.get(Account, account.id).balance_cents == 1_204_300 + 600


@pytest.mark.two_requests
def test_case_NB008_010(tb):
    """Goodwill asked for two fees, both recent, no goodwill in 180 days: the first one asked about is refunded, and
    that refund then blocks the second (one goodwill refund per 180 days); refuse it as not eligible."""
    timo, account = account_holder("Timo Graf", balance_cents=14_220)
    overdraft = FeeFactory(account=account, kind="overdraft", amount_cents=1_500, charged_at=days_ago(26, hour=6))
    plan = FeeFactory(account=account, kind="monthly_plan", amount_cents=990, charged_at=days_ago(14, hour=6))
    goodwill_refunded(account, "atm_withdrawal", 200, days_ago(250), days_ago(244))
    ticket = TicketFactory(requester=timo, subject="Two fees")

    run = tb.run(
        User(
            says="September was a rough month. First, you charged me 15 euros for going into overdraft when my "
            "salary came late; could you refund that as a goodwill gesture? And second, the 9.90 plan fee this "
            "month: I'd like that one back too, if you can.",
            knows=caller_facts(timo),
        ),
        golden=[
            *opening(timo, fees_of(timo), accounts_of(timo)),
            call("refund_fee", fee_id=overdraft.id, reason="goodwill"),
            *refused(
                ticket.id,
                "fees",
                "not_eligible",
                "Overdraft fee refunded as goodwill. Goodwill refund of the plan fee refused: a goodwill refund "
                "was given today, within 180 days.",
            ),
        ],
        reply="I've refunded the EUR 15.00 overdraft fee as a goodwill gesture. I can't refund the plan fee as well: "
        "we can give one goodwill refund in 180 days, and that refund was just used for the overdraft fee.",
        traps=[call("refund_fee", fee_id=plan.id, reason="goodwill")],  # both fees are recent, so refunds both
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "fees", "not_eligible")
    refund = run.db.query(FeeRefund).filter(FeeRefund.created_at >= days_ago(1)).one()
    assert (refund.fee_id, refund.reason, refund.amount_cents) == (overdraft.id, "goodwill", 1_500)
    assert run.db.query(FeeRefund).filter(FeeRefund.fee_id == plan.id).count() == 0  # blocked by today's refund
    assert run.db.get(Account, account.id).balance_cents == 14_220 + 1_500
