"""Money leaving the bank: outgoing transfers against the KYC limits, and savings withdrawals and their fee."""

from __future__ import annotations

from domains.neobank.clock import days_ago
from domains.neobank.factories import (
    AccountFactory,
    CustomerFactory,
    TicketFactory,
    TransactionFactory,
    TransferFactory,
    identity,
    make_iban,
)
from domains.neobank.models import Account, Fee, Hold, Ticket, Transfer
from domains.neobank.seed import BASIC
from pytest_thinkingbox import User, call

# --------------------------------------------------------------------------- NB004 transfers and KYC limits


def test_case_NB004_001(tb):
    """Basic customer sends a EUR 1,200 rent deposit: above the EUR 1,000 single limit, so create it held; pending."""
    hanna = CustomerFactory(name="Hanna Vogel", kyc_level=BASIC)
    account = AccountFactory(customer=hanna, balance_cents=340_000)
    landlord_iban = make_iban("10050000", "0190345678")
    ticket = TicketFactory(requester=hanna, account=account, subject="Deposit transfer")

    run = tb.run(
        User(
            says="I need to send 1,200 euros to my new landlord today for the rental deposit, otherwise I lose "
            "the flat. He gave me his bank details and a payment reference that must be on the transfer. Can you "
            "do that for me?",
            knows={
                **identity(hanna),
                "beneficiary name": "Grundstuecksgesellschaft Weber KG",
                "IBAN": landlord_iban,
                "reference": "Kaution Weserstrasse 14",
            },
        ),
        golden=[
            call("find_customer_by_email", email=hanna.email),
            call(
                "verify_identity",
                email=hanna.email,
                date_of_birth=hanna.date_of_birth.isoformat(),
                postal_code=hanna.postal_code,
            ),
            call("get_customer", customer_id=hanna.id),
            call("list_tickets", requester_id=hanna.id),
            call(
                "create_transfer",
                account_id=account.id,
                beneficiary_name="Grundstuecksgesellschaft Weber KG",
                beneficiary_iban=landlord_iban,
                amount_cents=120_000,
                reference="Kaution Weserstrasse 14",
                hold_for_review=True,
            ),
            call("update_ticket", ticket_id=ticket.id, status="pending"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Transfer of 120,000 cents held: above the basic single-transfer limit of 100,000 cents. "
                "Waiting for source-of-funds documents.",
                public=False,
            ),
        ],
        traps=[
            call(  # sends it at once, as she asks, without checking the basic single-transfer limit
                "create_transfer",
                account_id=account.id,
                beneficiary_name="Grundstuecksgesellschaft Weber KG",
                beneficiary_iban=landlord_iban,
                amount_cents=120_000,
                reference="Kaution Weserstrasse 14",
                hold_for_review=False,
            )
        ],
    )

    run.expect_golden()
    transfer = run.db.query(Transfer).one()  # policy: one transfer, held, never also sent at once
    assert (transfer.status, transfer.amount_cents) == ("held", 120_000)
    assert transfer.reference == "Kaution Weserstrasse 14"
    assert run.db.get(Account, account.id).balance_cents == 340_000
    assert run.db.get(Ticket, ticket.id).status == "pending"


def test_case_NB004_002(tb):
    """EUR 4,500 is under the standard single limit, but October's completed transfers push it over EUR 15,000: held."""
    jonas = CustomerFactory(name="Jonas Brandt")
    account = AccountFactory(customer=jonas, balance_cents=1_320_000)
    TransferFactory(account=account, amount_cents=400_000, created_at=days_ago(16), beneficiary_name="Jonas Brandt")
    TransferFactory(account=account, amount_cents=800_000, created_at=days_ago(13), beneficiary_name="Autohaus Kern")
    TransferFactory(account=account, amount_cents=300_000, created_at=days_ago(6), beneficiary_name="Tischlerei Maas")
    TransferFactory(
        account=account, amount_cents=200_000, created_at=days_ago(3), status="rejected", beneficiary_name="Kfz Petzold"
    )
    seller_iban = make_iban("43060967", "1182736400")
    ticket = TicketFactory(requester=jonas, subject="Pay for a used car")

    run = tb.run(
        User(
            says="I'm buying a used motorbike from a private seller and need to transfer him 4,500 euros, with the "
            "payment reference we agreed on. My limit is 5,000 per transfer, so that's fine, right?",
            knows={
                **identity(jonas),
                "beneficiary name": "Tobias Heinrich",
                "IBAN": seller_iban,
                "reference": "Kaufpreis Yamaha MT-07",
            },
        ),
        golden=[
            call("find_customer_by_email", email=jonas.email),
            call(
                "verify_identity",
                email=jonas.email,
                date_of_birth=jonas.date_of_birth.isoformat(),
                postal_code=jonas.postal_code,
            ),
            call("get_customer", customer_id=jonas.id),
            call("list_transfers", account_id=account.id),
            call("list_tickets", requester_id=jonas.id),
            call(
                "create_transfer",
                account_id=account.id,
                beneficiary_name="Tobias Heinrich",
                beneficiary_iban=seller_iban,
                amount_cents=450_000,
                reference="Kaufpreis Yamaha MT-07",
                hold_for_review=True,
            ),
            call("update_ticket", ticket_id=ticket.id, status="pending"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Transfer of 450,000 cents held: 1,100,000 cents already sent in October, total above the "
                "monthly limit of 1,500,000 cents. Waiting for source-of-funds documents.",
                public=False,
            ),
        ],
        traps=[
            call(  # "my limit is 5,000 per transfer": checks the single limit only, not October's total
                "create_transfer",
                account_id=account.id,
                beneficiary_name="Tobias Heinrich",
                beneficiary_iban=seller_iban,
                amount_cents=450_000,
                reference="Kaufpreis Yamaha MT-07",
                hold_for_review=False,
            )
        ],
    )

    run.expect_golden()
    held = run.db.query(Transfer).filter(Transfer.beneficiary_name == "Tobias Heinrich").one()
    assert held.status == "held"  # policy: above the monthly limit, held; nothing sent at once
    assert held.reference == "Kaufpreis Yamaha MT-07"
    assert run.db.query(Hold).filter(Hold.transfer_id == held.id).one().amount_cents == 450_000
    assert run.db.get(Account, account.id).balance_cents == 1_320_000


def test_case_NB004_003(tb):
    """EUR 5,000 equals the standard single limit and October's total stays under EUR 15,000 (September's excluded)."""
    amira = CustomerFactory(name="Amira Okoye")
    account = AccountFactory(customer=amira, balance_cents=1_405_000)
    TransferFactory(account=account, amount_cents=800_000, created_at=days_ago(15, hour=16), beneficiary_name="Notar")
    TransferFactory(
        account=account, amount_cents=600_000, created_at=days_ago(10), beneficiary_name="Kuechenstudio Lutz"
    )
    builder_iban = make_iban("50010517", "5407324911")
    TicketFactory(requester=amira, status="solved", subject="Transfer limits", created_at=days_ago(15))
    ticket = TicketFactory(requester=amira, account=account, subject="Transfer to builder")

    run = tb.run(
        User(
            says="I have to pay our builder 5,000 euros today for the second instalment of the bathroom "
            "renovation, with the payment reference from his invoice. Please send it from my main account.",
            knows={
                **identity(amira),
                "beneficiary name": "Baeder Schulte GmbH",
                "IBAN": builder_iban,
                "reference": "Rechnung 2026-118 Rate 2",
            },
        ),
        golden=[
            call("find_customer_by_email", email=amira.email),
            call(
                "verify_identity",
                email=amira.email,
                date_of_birth=amira.date_of_birth.isoformat(),
                postal_code=amira.postal_code,
            ),
            call("get_customer", customer_id=amira.id),
            call("list_transfers", account_id=account.id),
            call("list_tickets", requester_id=amira.id),
            call(
                "create_transfer",
                account_id=account.id,
                beneficiary_name="Baeder Schulte GmbH",
                beneficiary_iban=builder_iban,
                amount_cents=500_000,
                reference="Rechnung 2026-118 Rate 2",
                hold_for_review=False,
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[
            call(  # counts September's 8,000 transfer into October's total and holds it
                "create_transfer",
                account_id=account.id,
                beneficiary_name="Baeder Schulte GmbH",
                beneficiary_iban=builder_iban,
                amount_cents=500_000,
                reference="Rechnung 2026-118 Rate 2",
                hold_for_review=True,
            )
        ],
    )

    run.expect_golden()
    sent = run.db.query(Transfer).filter(Transfer.beneficiary_name == "Baeder Schulte GmbH").one()
    assert (sent.status, sent.reference) == ("completed", "Rechnung 2026-118 Rate 2")
    assert run.db.get(Account, account.id).balance_cents == 905_000
    assert run.db.query(Hold).count() == 0  # policy: within both limits (September excluded), nothing held


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
            says="Please move 300 euros from my savings to my main account, my rent is due tomorrow.",
            knows=identity(niklas),
        ),
        golden=[
            call("find_customer_by_email", email=niklas.email),
            call(
                "verify_identity",
                email=niklas.email,
                date_of_birth=niklas.date_of_birth.isoformat(),
                postal_code=niklas.postal_code,
            ),
            call("list_accounts", customer_id=niklas.id),
            call("list_transactions", account_id=savings.id),
            call("list_tickets", requester_id=niklas.id),
            call(
                "transfer_between_accounts",
                from_account_id=savings.id,
                to_account_id=current.id,
                amount_cents=30_000,
                fee_cents=0,
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    assert run.db.query(Fee).count() == 0
    assert run.db.get(Account, savings.id).balance_cents == 782_400
    assert run.db.get(Account, current.id).balance_cents == 36_020


def test_case_NB005_002(tb):
    """Three withdrawals already this month: the fourth costs 250 cents, even though the customer asks for no fee."""
    yara = CustomerFactory(name="Yara Lehmann")
    current, savings = _savings_pair(yara, savings_cents=415_000, current_cents=12_800)
    for amount, days in [(10_000, 13), (25_000, 9), (8_000, 3)]:
        TransactionFactory(
            account=savings,
            kind="transfer_out",
            amount_cents=amount,
            description="Main account",
            booked_at=days_ago(days),
        )
    ticket = TicketFactory(requester=yara, subject="Savings withdrawal")

    run = tb.run(
        User(
            says="Can you transfer 150 euros from my savings account to my current account? And please don't "
            "charge me anything for it, it's my own money.",
            knows=identity(yara),
        ),
        golden=[
            call("find_customer_by_email", email=yara.email),
            call(
                "verify_identity",
                email=yara.email,
                date_of_birth=yara.date_of_birth.isoformat(),
                postal_code=yara.postal_code,
            ),
            call("list_accounts", customer_id=yara.id),
            call("list_transactions", account_id=savings.id),
            call("list_tickets", requester_id=yara.id),
            call(
                "transfer_between_accounts",
                from_account_id=savings.id,
                to_account_id=current.id,
                amount_cents=15_000,
                fee_cents=250,
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[
            call(  # waives the fee because she asks
                "transfer_between_accounts",
                from_account_id=savings.id,
                to_account_id=current.id,
                amount_cents=15_000,
                fee_cents=0,
            )
        ],
    )

    run.expect_golden()
    assert run.db.query(Fee).one().amount_cents == 250
    assert run.db.get(Account, savings.id).balance_cents == 415_000 - 15_000 - 250  # policy: 4th withdrawal, fee
