"""Other names the bank's customers and staff use for the facts they tell support.

The simulated user reads a fact's key, these names and the shared synonyms
alike; "the last 4 of the account number" is read as a form of the account
number (the ``IBAN`` the caller pays to). Each name is one a caller would
really say.
"""

from __future__ import annotations

from domains.shared.aliases import EMPLOYEE_NUMBER

ALIASES: dict[str, tuple[str, ...]] = {
    "IBAN": (
        "IBAN number",
        "account number",
        "bank account number",
        "beneficiary's IBAN",
        "beneficiary account",
        "beneficiary's account number",
        "recipient's IBAN",
        "payee's IBAN",
        "IBAN you are sending to",
    ),
    "beneficiary name": (
        "name of the beneficiary",
        "recipient's name",
        "recipient name",
        "name of the recipient",
        "payee name",
        "payee's name",
        "name on the receiving account",
    ),
    "reference": (
        "payment reference",
        "transfer reference",
        "reference text",
        "reference for the payment",
        "reference on the transfer",
        "payment description",
        "reference line",
    ),
    "payments you recognise": (
        "payments you made",
        "card payments you recognise",
        "transactions you recognise",
        "payments that were yours",
        "which payments were yours",
    ),
    "recent card payments": ("recent payments", "latest card payments", "recent transactions", "last card payments"),
    "flagged payments": ("flagged transactions", "payments that were flagged", "suspicious payments"),
    "employee number": ("employee ID", *EMPLOYEE_NUMBER),
    "incident number": ("incident ID", "incident reference", "INC number", "incident ticket", "incident ticket number"),
    "line manager": ("manager", "direct manager", "reporting manager", "who you report to", "boss"),
    "which savings account": ("savings account", "savings pot", "name of the savings account", "savings space"),
}
