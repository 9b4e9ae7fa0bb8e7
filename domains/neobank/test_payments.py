"""Money leaving the bank: outgoing transfers against the KYC limits, and savings withdrawals and their fee."""

from __future__ import annotations

import pytest

from domains.neobank.calls import (
    Payee,
    accounts_of,
    create_transfer,
    customer_profile,
    fees_of,
    move_money,
    next_fee_id,
    opening,
    payee_facts,
    pending,
    refused,
    solved,
    ticket_end,
    transactions_of,
    transfers_of,
)
from domains.neobank.clock import days_ago
from domains.neobank.factories import (
    AccountFactory,
    CustomerFactory,
    FeeFactory,
    FeeRefundFactory,
    TicketFactory,
    TransactionFactory,
    TransferFactory,
    account_holder,
    make_iban,
    savings_withdrawal,
)
from domains.neobank.models import Account, Fee, FeeRefund, Hold, Ticket, Transfer
from domains.neobank.replies import SOURCE_OF_FUNDS
from domains.neobank.seed import BASIC
from domains.shared.identity import caller_facts
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a conversation",
    "KYC levels and limits",
    "Outgoing transfers",
    "Savings accounts and withdrawals",
    "Fees and fee refunds",
    "Tickets: classification, status, priority and comments",
)

# --------------------------------------------------------------------------- NB004 transfers and KYC limits


def test_case_NB004_001(tb):
    """Basic customer sends a EUR 1,200 rent deposit: above the EUR 1,000 single limit, so create it held; pending."""
    hanna, account = account_holder("Hanna Vogel", balance_cents=340_000, kyc_level=BASIC)
    landlord = Payee(
        "Grundstuecksgesellschaft Weber KG", make_iban("10050000", "0190345678"), "Kaution Weserstrasse 14"
    )
    ticket = TicketFactory(requester=hanna, account=account, subject="Deposit transfer")

    run = tb.run(
        User(
            says="I need to send 1,200 euros to my new landlord today for the rental deposit, otherwise I lose "
            "the flat. He gave me his bank details and a payment reference that must be on the transfer. Can you "
            "do that for me?",
            knows={**caller_facts(hanna), **payee_facts(landlord)},
        ),
        golden=[
            *opening(hanna, customer_profile(hanna)),
            create_transfer(account, landlord, 120_000, held=True),
            *pending(
                ticket.id,
                "transfer",
                "over_limit",
                "Transfer of 120,000 cents held: above the basic single-transfer limit of 100,000 cents. "
                "Waiting for source-of-funds documents.",
                queue="compliance",
            ),
        ],
        reply="I've set up the transfer of EUR 1,200 to Grundstuecksgesellschaft Weber KG, but it is above the EUR "
        "1,000 single-transfer limit of your verification level, so it is held for review. Please upload proof "
        "of your source of funds in the app; once our compliance team has checked it, the transfer is released.",
        traps=[  # sends it at once, as she asks, without checking the basic single-transfer limit
            create_transfer(account, landlord, 120_000, held=False)
        ],
    )

    run.expect_golden()
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.category, t.reason, t.queue) == ("pending", "transfer", "over_limit", "compliance")
    transfer = run.db.query(Transfer).one()  # policy: one transfer, held, never also sent at once
    assert (transfer.status, transfer.amount_cents) == ("held", 120_000)
    assert transfer.reference == "Kaution Weserstrasse 14"
    assert run.db.get(Account, account.id).balance_cents == 340_000
    run.rubric(SOURCE_OF_FUNDS.text, phrases=SOURCE_OF_FUNDS.phrases)


def test_case_NB004_002(tb):
    """EUR 4,500 is under the standard single limit, but October's completed transfers push it over EUR 15,000: held."""
    jonas, account = account_holder("Jonas Brandt", balance_cents=1_320_000)
    TransferFactory(account=account, amount_cents=400_000, created_at=days_ago(16), beneficiary_name="Jonas Brandt")
    TransferFactory(account=account, amount_cents=800_000, created_at=days_ago(13), beneficiary_name="Autohaus Kern")
    TransferFactory(account=account, amount_cents=300_000, created_at=days_ago(6), beneficiary_name="Tischlerei Maas")
    TransferFactory(
        account=account, amount_cents=200_000, created_at=days_ago(3), status="rejected", beneficiary_name="Kfz Petzold"
    )
    seller = Payee("Tobias Heinrich", make_iban("43060967", "1182736400"), "Kaufpreis Yamaha MT-07")
    ticket = TicketFactory(requester=jonas, subject="Pay for a used car")

    run = tb.run(
        User(
            says="I'm buying a used motorbike from a private seller and need to transfer him 4,500 euros, with the "
            "payment reference we agreed on. My limit is 5,000 per transfer, so that's fine, right?",
            knows={**caller_facts(jonas), **payee_facts(seller)},
        ),
        golden=[
            *opening(jonas, customer_profile(jonas), transfers_of(account)),
            create_transfer(account, seller, 450_000, held=True),
            *pending(
                ticket.id,
                "transfer",
                "over_limit",
                "Transfer of 450,000 cents held: 1,100,000 cents already sent in October, total above the "
                "monthly limit of 1,500,000 cents. Waiting for source-of-funds documents.",
                queue="compliance",
            ),
        ],
        traps=[  # "my limit is 5,000 per transfer": checks the single limit only, not October's total
            create_transfer(account, seller, 450_000, held=False)
        ],
    )

    run.expect_golden()
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.category, t.reason, t.queue) == ("pending", "transfer", "over_limit", "compliance")
    held = run.db.query(Transfer).filter(Transfer.beneficiary_name == "Tobias Heinrich").one()
    assert held.status == "held"  # policy: above the monthly limit, held; nothing sent at once
    assert held.reference == "Kaufpreis Yamaha MT-07"
    assert run.db.query(Hold).filter(Hold.transfer_id == held.id).one().amount_cents == 450_000
    assert run.db.get(Account, account.id).balance_cents == 1_320_000


def test_case_NB004_003(tb):
    """EUR 5,000 equals the standard single limit and October's total stays under EUR 15,000 (September's excluded)."""
    amira, account = account_holder("Amira Okoye", balance_cents=1_405_000)
    TransferFactory(account=account, amount_cents=800_000, created_at=days_ago(15, hour=16), beneficiary_name="Notar")
    TransferFactory(
        account=account, amount_cents=600_000, created_at=days_ago(10), beneficiary_name="Kuechenstudio Lutz"
    )
    builder = Payee("Baeder Schulte GmbH", make_iban("50010517", "5407324911"), "Rechnung 2026-118 Rate 2")
    TicketFactory(requester=amira, status="solved", subject="Transfer limits", created_at=days_ago(15))
    ticket = TicketFactory(requester=amira, account=account, subject="Transfer to builder")

    run = tb.run(
        User(
            says="I have to pay our builder 5,000 euros today for the second instalment of the bathroom "
            "renovation, with the payment reference from his invoice. Please send it from my main account.",
            knows={**caller_facts(amira), **payee_facts(builder)},
        ),
        golden=[
            *opening(amira, customer_profile(amira), transfers_of(account)),
            create_transfer(account, builder, 500_000, held=False),
            solved(ticket.id, "transfer"),
        ],
        traps=[  # counts September's 8,000 transfer into October's total and holds it
            create_transfer(account, builder, 500_000, held=True)
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "transfer", None)
    sent = run.db.query(Transfer).filter(Transfer.beneficiary_name == "Baeder Schulte GmbH").one()
    assert (sent.status, sent.reference) == ("completed", "Rechnung 2026-118 Rate 2")
    assert run.db.get(Account, account.id).balance_cents == 905_000
    assert run.db.query(Hold).count() == 0  # policy: within both limits (September excluded), nothing held


@pytest.mark.distractors
def test_case_NB004_004(tb):
    """EUR 2,500 fits October's EUR 15,000 when both current accounts are counted and the cancelled transfer is
    not: send it at once."""
    lena, main = account_holder("Lena Okoye", balance_cents=912_000)
    household = AccountFactory(customer=lena, nickname="Household", balance_cents=287_500)
    TransferFactory(account=main, amount_cents=400_000, created_at=days_ago(20), beneficiary_name="Umzuege Haase")
    TransferFactory(account=main, amount_cents=700_000, created_at=days_ago(12), beneficiary_name="Autohaus Kern")
    TransferFactory(
        account=main,
        amount_cents=300_000,
        created_at=days_ago(8),
        status="cancelled",
        beneficiary_name="Moebel Pfister",
    )
    TransferFactory(account=household, amount_cents=500_000, created_at=days_ago(5), beneficiary_name="Kita Sonnenhof")
    venue = Payee("Gut Ravensberg Events GmbH", make_iban("12030000", "1020775533"), "GR-2027-0612")
    ticket = TicketFactory(requester=lena, account=main, subject="Venue deposit")

    run = tb.run(
        User(
            says="We're paying the deposit for our wedding venue today: 2,500 euros from my main account, with their "
            "booking number as the reference. It really has to go out today, otherwise they give our date to "
            "another couple tomorrow morning.",
            knows={
                **caller_facts(lena),
                "beneficiary name": venue.name,
                "IBAN": venue.iban,
                "booking number": venue.reference,
            },
        ),
        golden=[
            *opening(lena, customer_profile(lena), accounts_of(lena), transfers_of(main), transfers_of(household)),
            create_transfer(main, venue, 250_000, held=False),
            solved(ticket.id, "transfer"),
        ],
        traps=[  # counts the cancelled 3,000 (or September's 4,000) into October and holds it
            create_transfer(main, venue, 250_000, held=True)
        ],
    )

    run.expect_golden()
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.category, t.reason, t.queue) == ("solved", "transfer", None, None)
    sent = run.db.query(Transfer).filter(Transfer.beneficiary_name == "Gut Ravensberg Events GmbH").one()
    assert (sent.status, sent.reference) == ("completed", "GR-2027-0612")  # 7,000 + 5,000 + 2,500 <= 15,000
    assert run.db.get(Account, main.id).balance_cents == 912_000 - 250_000
    assert run.db.query(Hold).count() == 0


@pytest.mark.pushback
def test_case_NB004_005(tb):
    """Basic customer sends EUR 1,500 and offers to split it into 1,000 + 500: never split; hold the whole amount."""
    mateo, account = account_holder("Mateo Richter", balance_cents=412_300, kyc_level=BASIC)
    brother = Payee("Tomas Richter", make_iban("76050101", "0011823400"), "Reparatur Golf")
    ticket = TicketFactory(requester=mateo, account=account, subject="Money for my brother")

    run = tb.run(
        User(
            says="I owe my brother 1,500 euros for fixing my car and want to send it to him today. If the app won't "
            "let it through in one go, then send 1,000 now and the other 500 tomorrow, that's fine by me. Just "
            "get the money moving.",
            knows={**caller_facts(mateo), **payee_facts(brother)},
            persona="Friendly but pushy; thinks splitting a payment is a clever workaround.",
            rules=(
                "If refused, suggest once splitting the amount into two smaller transfers, then accept the answer.",
            ),
        ),
        golden=[
            *opening(mateo, customer_profile(mateo), transfers_of(account)),
            create_transfer(account, brother, 150_000, held=True),
            *pending(
                ticket.id,
                "transfer",
                "over_limit",
                "150,000 cents held above the basic single limit of 100,000; not split as the customer offered. "
                "Waiting for source-of-funds documents.",
                queue="compliance",
            ),
        ],
        traps=[  # the first half of the split he offers, sent at once under the single limit
            create_transfer(account, brother, 100_000, held=False)
        ],
    )

    run.expect_golden()
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.category, t.reason, t.queue) == ("pending", "transfer", "over_limit", "compliance")
    transfer = run.db.query(Transfer).one()  # policy: one transfer for the whole amount, never split
    assert (transfer.status, transfer.amount_cents) == ("held", 150_000)
    assert run.db.get(Account, account.id).balance_cents == 412_300


# --------------------------------------------------------------------------- NB005 savings withdrawals


def _savings_pair(customer, *, savings_cents, current_cents):
    current = AccountFactory(customer=customer, balance_cents=current_cents)
    savings = AccountFactory(customer=customer, kind="savings", balance_cents=savings_cents)
    return current, savings


def test_case_NB005_001(tb):
    """Two October withdrawals so far (September's and the deposit do not count): this third one is free."""
    niklas = CustomerFactory(name="Niklas Kowalski")
    current, savings = _savings_pair(niklas, savings_cents=812_400, current_cents=6_020)
    for kind, amount, booked in [
        ("transfer_out", 30_000, days_ago(17)),
        ("interest", 612, days_ago(15, hour=3)),
        ("transfer_in", 50_000, days_ago(14)),
        ("transfer_out", 20_000, days_ago(12)),
        ("transfer_out", 15_000, days_ago(6)),
    ]:
        TransactionFactory(
            account=savings, kind=kind, amount_cents=amount, description="Main account", booked_at=booked
        )
    ticket = TicketFactory(requester=niklas, account=savings, subject="Move money from savings")

    run = tb.run(
        User(
            says="Please move 300 euros from my savings to my main account. My rent is due tomorrow and I'd rather not"
            " go into overdraft again. If you need anything from me to do it, just ask.",
            knows=caller_facts(niklas),
        ),
        golden=[
            *opening(niklas, accounts_of(niklas), transactions_of(savings)),
            move_money(savings, current, 30_000, 0),
            solved(ticket.id, "savings"),
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "savings", None)
    assert run.db.query(Fee).count() == 0
    assert run.db.get(Account, savings.id).balance_cents == 782_400
    assert run.db.get(Account, current.id).balance_cents == 36_020


def test_case_NB005_002(tb):
    """Three withdrawals already this month: the fourth costs 250 cents, even though the customer asks for no fee."""
    yara = CustomerFactory(name="Yara Lehmann")
    current, savings = _savings_pair(yara, savings_cents=415_000, current_cents=12_800)
    for amount, days in [(10_000, 13), (25_000, 9), (8_000, 3)]:
        savings_withdrawal(savings, amount, days_ago(days))
    ticket = TicketFactory(requester=yara, subject="Savings withdrawal")

    run = tb.run(
        User(
            says="Can you transfer 150 euros from my savings account to my current account? And please don't charge me"
            " anything for it, it's my own money after all, and I'm only moving it between my own accounts.",
            knows=caller_facts(yara),
        ),
        golden=[
            *opening(yara, accounts_of(yara), transactions_of(savings)),
            move_money(savings, current, 15_000, 250),
            solved(ticket.id, "savings"),
        ],
        reply="Done: EUR 150 is on its way to your current account. This is your fourth withdrawal from savings this "
        "month, so the EUR 2.50 withdrawal fee applies; I can't waive it.",
        traps=[  # waives the fee because she asks
            move_money(savings, current, 15_000, 0)
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "savings", None)
    assert run.db.query(Fee).one().amount_cents == 250
    assert run.db.get(Account, savings.id).balance_cents == 415_000 - 15_000 - 250  # policy: 4th withdrawal, fee


@pytest.mark.two_requests
@pytest.mark.pushback
def test_case_NB005_003(tb):
    """Fifth withdrawal this month costs 250 cents; the goodwill refund of it she demands is refused (goodwill
    100 days ago)."""
    sofia = CustomerFactory(name="Sofia Albers")
    current, savings = _savings_pair(sofia, savings_cents=1_240_000, current_cents=18_450)
    for amount, days in [(20_000, 13), (15_000, 10), (30_000, 6), (10_000, 2)]:
        savings_withdrawal(savings, amount, days_ago(days))
    old_plan_fee = FeeFactory(account=current, kind="monthly_plan", amount_cents=990, charged_at=days_ago(104, hour=6))
    FeeRefundFactory(fee=old_plan_fee, created_at=days_ago(100))
    ticket = TicketFactory(requester=sofia, subject="Savings transfer")

    run = tb.run(
        User(
            says="Please move 400 euros from my savings into my current account. I know you'll charge me for it "
            "this time. Fine, take it, but then give it back to me afterwards: I've banked with you for years. "
            "Otherwise I'll take my savings somewhere else.",
            knows=caller_facts(sofia),
            persona="Long-standing customer who threatens to leave when she does not get her way.",
            rules=("If refused, say you will think about moving your savings elsewhere, then end.",),
        ),
        golden=[
            *opening(sofia, accounts_of(sofia), transactions_of(savings), fees_of(sofia)),
            move_money(savings, current, 40_000, 250),
            *refused(
                ticket.id,
                "fees",
                "not_eligible",
                "Fifth withdrawal of October, 250-cent fee charged. Goodwill refund refused: last goodwill "
                "refund 100 days ago.",
            ),
        ],
        traps=[  # gives the fee straight back, as she demands
            call("refund_fee", fee_id=next_fee_id(old_plan_fee.id), reason="goodwill")
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "fees", "not_eligible")
    fee = run.db.query(Fee).filter(Fee.kind == "savings_withdrawal").one()
    assert fee.amount_cents == 250  # policy: 5th withdrawal of the month
    assert run.db.query(FeeRefund).count() == 1  # policy: one goodwill refund per 180 days
    assert run.db.get(Account, savings.id).balance_cents == 1_240_000 - 40_000 - 250


@pytest.mark.distractors
def test_case_NB005_004(tb):
    """Third October withdrawal from the holiday pot (the other two October withdrawals were from another savings
    account): free."""
    niklas, current = account_holder("Niklas Vogel", balance_cents=21_300)
    emergency = AccountFactory(customer=niklas, kind="savings", nickname="Emergency fund", balance_cents=505_000)
    holiday = AccountFactory(customer=niklas, kind="savings", nickname="Holiday", balance_cents=152_600)
    for account, amount, days in [
        (holiday, 10_000, 18),
        (emergency, 40_000, 13),
        (holiday, 5_000, 12),
        (emergency, 25_000, 9),
        (holiday, 7_500, 7),
    ]:
        savings_withdrawal(account, amount, days_ago(days))
    ticket = TicketFactory(requester=niklas, subject="Holiday money")

    run = tb.run(
        User(
            says="Could you move 250 euros from my holiday savings pot to my current account? We're booking flights "
            "tonight. I've been dipping into my savings quite a lot this month, so if that's going to cost me "
            "something, I'd like to know.",
            knows=caller_facts(niklas),
        ),
        golden=[
            *opening(niklas, accounts_of(niklas), transactions_of(holiday)),
            move_money(holiday, current, 25_000, 0),
            solved(ticket.id, "savings"),
        ],
        traps=[  # counts the emergency fund's withdrawals (and September's) too, and charges the fee
            move_money(holiday, current, 25_000, 250)
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "savings", None)
    assert run.db.query(Fee).count() == 0  # policy: the third withdrawal of October from this account is free
    assert run.db.get(Account, holiday.id).balance_cents == 152_600 - 25_000
    assert run.db.get(Account, current.id).balance_cents == 21_300 + 25_000
