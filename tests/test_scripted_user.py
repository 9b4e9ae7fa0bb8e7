"""The scripted user understands how agents ask: paraphrases, variants and spellings of each fact's name.

A score with this user must depend on what the agent asks, not on its wording:
every phrasing below is one a careful agent might use. The figures the issue
asks for are asserted: at least 95% revealed exactly, and no wrong reveal.
"""

from __future__ import annotations

import asyncio

import pytest

from pytest_thinkingbox import User
from pytest_thinkingbox.roles.users.scripted import AGREE, GOODBYE, UNKNOWN, ScriptedUser

KNOWS = {
    "retail": {
        "email": "amara@example.com",
        "order id": "O-1042",
        "postal code": "90210",
        "date of birth": "1988-03-14",
        "return number": "R-0007",
        "refund or replacement": "a refund",
    },
    "auto_insurance": {
        "email": "li@example.com",
        "policy number": "P-3001",
        "date of birth": "1979-11-02",
        "postal code": "SW1A 1AA",
        "VIN": "1HGCM82633A004352",
        "licence number": "D1234567",
    },
    "travel": {
        "email": "kofi@example.com",
        "booking reference": "B-0420",
        "group reference": "G-0012",
        "date of birth": "1990-07-21",
    },
    "neobank": {
        "email": "ana@example.com",
        "date of birth": "1985-01-30",
        "postal code": "10115",
        "IBAN": "DE89370400440532013000",
        "beneficiary name": "Ana Ruiz",
        "payments you recognise": "only the two grocery payments",
    },
    "consulting": {
        "email": "raj@example.com",
        "employee id": "E-0102",
        "role wanted": "read-only analyst",
        "expense report": "EX-0033",
    },
}

# (domain, the agent's message, the facts it asks for)
ASKS = [
    ("retail", "Could you give me the email address on your account?", {"email"}),
    ("retail", "What's your e-mail, please?", {"email"}),
    ("retail", "Which email do you use with us?", {"email"}),
    ("retail", "What is your order number?", {"order id"}),
    ("retail", "Can you share the order # please?", {"order id"}),
    ("retail", "Which order ID is this about?", {"order id"}),
    ("retail", "Do you have the order reference handy?", {"order id"}),
    ("retail", "Please tell me your ZIP code.", {"postal code"}),
    ("retail", "What's the postcode on the account?", {"postal code"}),
    ("retail", "Could you confirm your post code?", {"postal code"}),
    ("retail", "What is your birth date?", {"date of birth"}),
    ("retail", "Can you give me your DOB?", {"date of birth"}),
    ("retail", "When is your birthday?", {"date of birth"}),
    ("retail", "When were you born?", {"date of birth"}),
    ("retail", "What is the return number you were given?", {"return number"}),
    ("retail", "Do you have the RMA?", {"return number"}),
    ("retail", "Would you prefer a refund or a replacement?", {"refund or replacement"}),
    ("retail", "Refund or replacement: which would you like?", {"refund or replacement"}),
    ("retail", "To verify you, what are your date of birth and ZIP code?", {"date of birth", "postal code"}),
    ("auto_insurance", "What is your policy number?", {"policy number"}),
    ("auto_insurance", "Can I have the policy ID?", {"policy number"}),
    ("auto_insurance", "Please share your policy reference.", {"policy number"}),
    ("auto_insurance", "What's the VIN of the new car?", {"VIN"}),
    ("auto_insurance", "Could you read me the vehicle identification number?", {"VIN"}),
    ("auto_insurance", "What's the chassis number on the registration?", {"VIN"}),
    ("auto_insurance", "What is your driving licence number?", {"licence number"}),
    ("auto_insurance", "What's your driver license number?", {"licence number"}),
    ("auto_insurance", "Please confirm your date of birth.", {"date of birth"}),
    ("auto_insurance", "What's your zip?", {"postal code"}),
    ("auto_insurance", "Which email address is on the policy?", {"email"}),
    ("auto_insurance", "What is the date of your birth?", {"date of birth"}),
    ("travel", "What is your booking reference?", {"booking reference"}),
    ("travel", "Do you have the confirmation code?", {"booking reference"}),
    ("travel", "What's the reservation number?", {"booking reference"}),
    ("travel", "Could you share the booking ref?", {"booking reference"}),
    ("travel", "What's the booking number for the stay?", {"booking reference"}),
    ("travel", "What is the group booking reference?", {"group reference"}),
    ("travel", "And the group reference, please?", {"group reference"}),
    ("travel", "May I have your email?", {"email"}),
    ("travel", "What's your birthdate?", {"date of birth"}),
    ("travel", "Can you tell me the confirmation number from your email?", {"booking reference", "email"}),
    ("neobank", "What's the IBAN you want to send to?", {"IBAN"}),
    ("neobank", "What is the beneficiary's name?", {"beneficiary name"}),
    ("neobank", "Do you recognize these payments?", {"payments you recognise"}),
    ("neobank", "Which of these payments do you recognise?", {"payments you recognise"}),
    ("neobank", "What is your date of birth and postal code?", {"date of birth", "postal code"}),
    ("neobank", "Please give me your postcode.", {"postal code"}),
    ("neobank", "What's the email on your account?", {"email"}),
    ("neobank", "Could you confirm your birthday?", {"date of birth"}),
    ("neobank", "What name should the beneficiary have?", {"beneficiary name"}),
    ("consulting", "What's your employee number?", {"employee id"}),
    ("consulting", "What is your staff ID?", {"employee id"}),
    ("consulting", "Which role do you want?", {"role wanted"}),
    ("consulting", "What role is wanted on the project?", {"role wanted"}),
    ("consulting", "Which expense report is it?", {"expense report"}),
    ("consulting", "What's the expense report number?", {"expense report"}),
    ("consulting", "Please send me your work email.", {"email"}),
    ("consulting", "Could you give me your employee ID and email?", {"employee id", "email"}),
    ("consulting", "Can you share the staff number of the person leaving?", {"employee id"}),
    ("consulting", "What e-mail address should I use?", {"email"}),
]

# (domain, the agent's message, the user's whole reply): nothing revealed, no yes to what is not a proposal.
OTHERS = [
    ("retail", "What is the weather like where you are?", UNKNOWN),
    ("retail", "Do you have a loyalty card with us?", UNKNOWN),
    ("retail", "Could you confirm the order date and your customer id?", UNKNOWN),
    ("retail", "Do you want to know the status of your other parcel?", UNKNOWN),
    ("travel", "Which hotel did you stay at last year?", UNKNOWN),
    ("neobank", "What is your mother's maiden name?", UNKNOWN),
    ("consulting", "Which client is the engagement with?", UNKNOWN),
    ("retail", "Shall I go ahead and cancel the order?", AGREE),
    ("retail", "Would you like me to refund the shipping as well?", AGREE),
    ("neobank", "Do you want me to freeze the card now?", AGREE),
    ("travel", "Is there anything else I can help with?", GOODBYE),
    ("retail", "I have refunded the blender to your card.", GOODBYE),
]


def reply(domain: str, message: str) -> str:
    user = ScriptedUser(User(says="Hello", knows=KNOWS[domain]))
    return asyncio.run(user.reply(message)).text


def revealed(domain: str, text: str) -> set[str]:
    return {key for key, value in KNOWS[domain].items() if f"My {key} is {value}." in text}


def test_paraphrases_reveal_the_fact_asked_for_and_nothing_else():
    assert len(ASKS) >= 60 and {d for d, _, _ in ASKS} == set(KNOWS)
    exact, wrong = 0, []
    for domain, message, expected in ASKS:
        got = revealed(domain, reply(domain, message))
        exact += got == expected
        wrong += [f"{message!r} revealed {key}" for key in got - expected]
    assert not wrong, wrong
    assert exact / len(ASKS) >= 0.95, f"{exact} of {len(ASKS)} revealed exactly"


@pytest.mark.parametrize(("domain", "message", "expected"), OTHERS)
def test_what_the_user_cannot_answer_gets_an_honest_reply(domain, message, expected):
    text = reply(domain, message)
    assert text == expected and not revealed(domain, text)


def test_a_fact_is_revealed_only_when_asked():
    assert reply("retail", "I checked your order number already.") == GOODBYE
