"""The scripted user understands how agents ask: paraphrases, variants and spellings of each fact's name.

A score with this user must depend on what the agent asks, not on its wording:
every phrasing below is one a careful agent might use. The figures the issue
asks for are asserted: at least 95% revealed exactly, and no wrong reveal.
Then how it follows the rest of its brief: status messages, choices,
proposals and the task's rules. (`test_user_paraphrases.py` measures it on
questions written in the styles agents use, with the domains' aliases.)
"""

from __future__ import annotations

import asyncio

import pytest

from pytest_thinkingbox import User
from pytest_thinkingbox.roles.users.scripted import (
    ACKNOWLEDGE,
    AGREE,
    DECLINE,
    GOODBYE,
    NO_PREFERENCE,
    SMALL_TALK,
    UNKNOWN,
    ScriptedUser,
)

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
    ("travel", "Can you tell me the confirmation number from your email?", {"booking reference"}),
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
    ("consulting", "Can you share your staff number?", {"employee id"}),
    ("consulting", "Employee number, please?", {"employee id"}),
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
    ("consulting", "Can you share the staff number of the person leaving?", UNKNOWN),  # not the user's own
    ("travel", "Is your booking reference printed in blue ink?", UNKNOWN),
    ("retail", "How are you today?", SMALL_TALK),
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
    return {key for key, value in KNOWS[domain].items() if value.lower() in text.lower()}


def test_paraphrases_reveal_the_fact_asked_for_and_nothing_else():
    assert len(ASKS) >= 60
    assert {d for d, _, _ in ASKS} == set(KNOWS)
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
    assert text == expected
    assert not revealed(domain, text)


def test_a_fact_is_revealed_only_when_asked():
    assert reply("retail", "I checked your order number already.") == GOODBYE


def turns(brief: User, *messages: str) -> list[tuple[str, bool]]:
    """The user's replies to the agent's messages, one conversation."""
    user = ScriptedUser(brief)
    return [(turn.text, turn.end) for turn in (asyncio.run(user.reply(m)) for m in messages)]


BRIEF = User(says="My blender arrived broken. I'd like my money back.", knows=KNOWS["retail"])


def test_the_last_four_digits_of_a_fact_are_a_form_of_it():
    brief = User(
        says="Hi",
        knows={"IBAN": "DE89370400440532013000", "card number": "4921 5573 0012 8846"},
        aliases={"IBAN": ("account number",)},
    )
    assert turns(
        brief,
        "Could you give me the last four digits of the account?",
        "And the last 4 of the card?",
        "What are the last four of your IBAN?",
    ) == [
        ("The last four digits of my IBAN are 3000.", False),
        ("The last four digits of my card number are 8846.", False),
        ("The last four digits of my IBAN are 3000.", False),
    ]


def test_aliases_of_the_brief_name_its_facts_and_the_facts_of_others_stay_theirs():
    brief = User(
        says="Hi",
        knows={"employee id": "E-0102", "date of birth": "1990-01-01", "son's date of birth": "2012-05-05"},
        aliases={"employee id": ("personnel number", "payroll number")},
    )
    assert turns(brief, "What's your HR or payroll number?")[0][0] == "My employee id is E-0102."
    assert turns(brief, "When were you born?")[0][0] == "My date of birth is 1990-01-01."
    assert turns(brief, "And your son's DOB?")[0][0] == "My son's date of birth is 2012-05-05."
    assert turns(brief, "What is your daughter's date of birth?")[0][0] == UNKNOWN


def test_a_list_shares_its_owner_and_it_names_the_fact_just_mentioned():
    brief = User(
        says="Hi",
        knows={
            "date of birth": "1979-08-14",
            "driver's full name": "Tanya Brook",
            "driver's date of birth": "1981-01-05",
        },
    )
    assert turns(brief, "Please share the full name and date of birth of the driver you want to add.")[0][0] == (
        "The driver's full name is Tanya Brook. The driver's date of birth is 1981-01-05."
    )
    assert turns(brief, "What's the driver's name and date of birth?")[0][0] == (
        "The driver's full name is Tanya Brook. The driver's date of birth is 1981-01-05."
    )
    policy = User(says="Hi", knows={"policy number": "POL-1"})
    assert turns(policy, "If you have the policy number handy, please share it.")[0][0] == "My policy number is POL-1."


@pytest.mark.parametrize(
    "message",
    ["Let me look that up for you.", "One moment while I check.", "I'll pull up your order now.", "Please hold."],
)
def test_a_status_message_is_acknowledged_and_the_conversation_goes_on(message):
    assert turns(BRIEF, message) == [(ACKNOWLEDGE, False)]


def test_a_message_that_asks_nothing_and_is_not_a_status_ends_the_conversation():
    assert turns(BRIEF, "Your refund of $49.99 has been issued to your card.") == [(GOODBYE, True)]


def test_a_choice_is_answered_from_the_declared_preference_and_never_picked_without_one():
    assert turns(BRIEF, "Would you like a refund or a replacement?")[0][0] == "A refund, please."
    credit = User(says="Hi", knows={"email": "a@example.com", "refund method": "store credit"})
    assert turns(credit, "Would you like the refund to your card or as store credit?")[0][0] == "Store credit, please."
    nothing = User(says="Hi", knows={"email": "a@example.com"})
    assert turns(nothing, "Would you like the refund to your card or as store credit?")[0][0] == NO_PREFERENCE
    assert turns(nothing, "Refund or replacement?")[0][0] == NO_PREFERENCE
    assert turns(nothing, "Is the item damaged or just faulty?")[0][0] == UNKNOWN  # alternatives, not a choice


def test_a_proposal_gets_a_go_ahead_unless_the_preference_or_a_rule_says_otherwise():
    assert turns(BRIEF, "Shall I cancel it?")[0][0] == AGREE
    assert turns(BRIEF, "Do you want me to go ahead with the refund?")[0][0] == AGREE
    replace = User(says="Hi", knows={"refund or replacement": "a replacement, not a refund"})
    assert turns(replace, "Shall I refund the blender?")[0][0] == "A replacement, not a refund, please."
    assert turns(replace, "Shall I send a replacement?")[0][0] == AGREE
    keep = User(says="Hi", rules=("If the agent offers to cancel the policy, say no.",))
    assert turns(keep, "Would you like me to cancel the policy?")[0][0] == DECLINE
    assert turns(keep, "Shall I remove the Outback from the policy?")[0][0] == AGREE


def test_a_rule_to_insist_once_is_followed_on_the_first_refusal_then_the_answer_is_accepted():
    brief = User(
        says="My windshield cracked. Please cover the glass in full.",
        rules=("If refused, insist once that glass should be covered in full, then accept.",),
    )
    refused = "I'm sorry, but your policy does not cover glass in full: the $500 deductible applies."
    first, second = turns(brief, refused, refused)
    assert first == (
        "I must insist that glass should be covered in full. I'd still like what I asked for: "
        "My windshield cracked. Please cover the glass in full.",
        False,
    )
    assert second == (GOODBYE, True)


FEE = "If told there is a fee, insist once that a four-month-old card should be free, then accept."
ONCE_MORE = "Ask once more for the cancellation to start on 1 May when the agent refuses."
ENOUGH = "If told you must wait for another approval, insist once that your manager's approval is enough."


def test_a_rule_condition_names_what_sets_the_pushback_off():
    card = User(says="My card is worn out; please send a new one.", rules=(FEE,))
    first, second = turns(card, "A replacement card costs a 5 euro fee. Shall I order it?", "Shall I order it?")
    assert first[0].startswith("I must insist that a four-month-old card should be free. I'd still like")
    assert second == (AGREE, False)
    cancel = User(says="Cancel from 1 May.", rules=(ONCE_MORE,))
    assert turns(cancel, "I can't back-date it.")[0][0] == "I'd still like the cancellation to start on 1 May."
    access = User(says="Hi", rules=(ENOUGH,))
    said = turns(access, "This request must wait for another approval.")[0][0]
    assert said.startswith("I must insist that my manager's approval is enough.")


def test_rules_that_accept_need_no_pushback():
    brief = User(says="Please back-date it.", rules=("Accept cover from today once the agent explains why.",))
    assert turns(brief, "I'm afraid cover can only start today; it cannot be back-dated.") == [(GOODBYE, True)]
