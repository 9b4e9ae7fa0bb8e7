"""The scripted user measured on questions written the way people write them.

The questions were written before the user was taught to read them, in the
styles agents use: formal, casual, terse, long-winded, with typos, British and
American, a question inside a longer message, several facts at once. Each
domain's user holds facts of its bundled tasks and reads them with the
domain's declared aliases, as the harness gives them. A fact counts as
revealed when its value (or, for "the last four digits of ...", the last four
characters of its value) appears in the reply. The figures asked for: at
least 95% of the fact questions answered with exactly the facts they ask for,
no wrong fact ever, and no fact at all to the questions that ask for none.
"""

from __future__ import annotations

import asyncio
import importlib
import re

from pytest_thinkingbox import User
from pytest_thinkingbox.roles.users.scripted import ScriptedUser

KNOWS = {
    "retail": {
        "email": "amara.okafor@example.com",
        "order id": "O-5001",
        "postal code": "90210",
        "return number": "RMA-6001",
        "installation job": "IJ-4401",
        "chair order number": "O-5002",
        "serial number": "SN-2600323",
        "condition": "opened, never used",
        "new street address": "48 Larkspur Lane",
    },
    "auto_insurance": {
        "email": "li.wen@example.com",
        "date of birth": "1979-11-02",
        "postal code": "43215",
        "policy number": "POL-40101",
        "claim number": "CL-70402",
        "VIN": "1FTFW1E52SFA41877",
        "licence number": "738 204 119",
        "date of the accident": "9 May 2026",
        "invoice total": "$412.60",
        "who was driving": "my wife Abena",
        "injuries": "no one was hurt",
        "drivable": "yes, the car drives fine",
        "son's date of birth": "2006-04-15",
        "tow bill": "$95.00",
    },
    "travel": {
        "email": "kofi.mensah@example.com",
        "booking reference": "BK-5002",
        "Lisbon booking reference": "BK-5001",
        "employee number": "E-2104",
        "group reference": "GB-601",
        "trip reference": "TRP-401",
        "which stay": "the one starting this Thursday, 10 September",
        "accept the late checkout fee": "yes, I'll pay the hotel's late checkout fee",
    },
    "neobank": {
        "email": "ana.ruiz@example.com",
        "date of birth": "1985-01-30",
        "postal code": "10115",
        "IBAN": "DE89370400440532013000",
        "beneficiary name": "Maren Jansen",
        "reference": "Rechnung 2026-118",
        "payments you recognise": "only the bakery at 7:41, that was my breakfast",
        "card number": "4921 5573 0012 8846",
        "employee number": "E-2117",
        "incident number": "INC-4102",
        "line manager": "Bianca Kaiser",
    },
    "consulting": {
        "email": "raj.patel@haldenprice.com",
        "employee id": "E-2002",
        "role wanted": "editor",
        "expense report": "EXP-9001",
        "system": "Salesforce CRM",
        "software": "Tableau Creator",
        "item": "Dell UltraSharp 27-inch monitor, HW-204",
        "leaver": "Sofia Braun, employee id E-2003",
        "engagement": "Payments modernisation, ENG-601",
    },
}

LAST4 = "last four of "  # an expected fact given only by its last four characters: "last four of IBAN"

# (domain, the agent's message, the facts it asks for)
FACT_QUESTIONS = [
    # retail
    ("retail", "Could you please provide the email address associated with your account?", {"email"}),
    ("retail", "whats ur email", {"email"}),
    (
        "retail",
        "Hi there! Sorry to hear that. So I can pull up your account, what email did you register with?",
        {"email"},
    ),
    ("retail", "What's the order number?", {"order id"}),
    ("retail", "Order ID?", {"order id"}),
    ("retail", "can u send me the order no. pls", {"order id"}),
    (
        "retail",
        "I'd be happy to help with that. First, could I get your order reference and the ZIP code on the account?",
        {"order id", "postal code"},
    ),
    ("retail", "Would you mind confirming the postcode for the delivery address?", {"postal code"}),
    ("retail", "What's the RMA number you were given?", {"return number"}),
    ("retail", "Do you have the return authorisation number to hand?", {"return number"}),
    ("retail", "Can you tell me the number of the installation job?", {"installation job"}),
    ("retail", "Could you read me the serial number off the device?", {"serial number"}),
    ("retail", "Which order number is the chair on?", {"chair order number"}),
    ("retail", "And the order number for the chair, please?", {"chair order number"}),
    ("retail", "What condition is the item in?", {"condition"}),
    ("retail", "To verify you, what are your email and postal code?", {"email", "postal code"}),
    (
        "retail",
        "Thanks so much for your patience, I know waiting for a parcel is frustrating. I'll do everything I can to "
        "sort this out today. Before I can look at anything, though, I need to confirm a couple of details: the "
        "email on your account, and the order number this is about.",
        {"email", "order id"},
    ),
    ("retail", "Could you let me have your postcode, please?", {"postal code"}),
    ("retail", "What's the zip on your account?", {"postal code"}),
    ("retail", "Whats the new adress you want the parcel sent to?", {"new street address"}),
    # auto_insurance
    ("auto_insurance", "May I have your policy number, please?", {"policy number"}),
    ("auto_insurance", "What is the number printed on your policy document?", {"policy number"}),
    ("auto_insurance", "pls send policy # and DOB", {"policy number", "date of birth"}),
    (
        "auto_insurance",
        "For security purposes, could you confirm your date of birth and the postcode we have on file?",
        {"date of birth", "postal code"},
    ),
    ("auto_insurance", "What's the claim reference?", {"claim number"}),
    ("auto_insurance", "Have you got the claim number handy?", {"claim number"}),
    (
        "auto_insurance",
        "Could you read out the vehicle identification number? It's on the registration.",
        {"VIN"},
    ),
    ("auto_insurance", "What's the VIN?", {"VIN"}),
    ("auto_insurance", "When did the accident happen?", {"date of the accident"}),
    ("auto_insurance", "On what date did the accident take place?", {"date of the accident"}),
    ("auto_insurance", "How much was the invoice?", {"invoice total"}),
    ("auto_insurance", "Who was driving at the time?", {"who was driving"}),
    ("auto_insurance", "Was anyone hurt?", {"injuries"}),
    ("auto_insurance", "Is the car still drivable?", {"drivable"}),
    ("auto_insurance", "What's your son's date of birth?", {"son's date of birth"}),
    ("auto_insurance", "When was your son born?", {"son's date of birth"}),
    ("auto_insurance", "And what was the tow bill?", {"tow bill"}),
    ("auto_insurance", "How much did the towing cost you?", {"tow bill"}),
    ("auto_insurance", "What are the last four digits of your driving licence number?", {LAST4 + "licence number"}),
    ("auto_insurance", "Could you give me your driver's license number please", {"licence number"}),
    (
        "auto_insurance",
        "I'm sorry to hear about the accident, I hope everyone is all right. So I can open the claim, I'll need "
        "your policy number, the date of the accident and the VIN of the car.",
        {"policy number", "date of the accident", "VIN"},
    ),
    # travel
    ("travel", "What's your booking reference?", {"booking reference"}),
    ("travel", "Could you share the confirmation number for the reservation?", {"booking reference"}),
    ("travel", "booking ref?", {"booking reference"}),
    ("travel", "And the reference for the Lisbon booking?", {"Lisbon booking reference"}),
    ("travel", "What is the Lisbon booking reference?", {"Lisbon booking reference"}),
    (
        "travel",
        "For cancellations I have to check your employee number first. What is it?",
        {"employee number"},
    ),
    ("travel", "Can you tell me your personnel number?", {"employee number"}),
    ("travel", "What's your HR or payroll number?", {"employee number"}),
    ("travel", "Staff ID?", {"employee number"}),
    ("travel", "What's the group booking reference?", {"group reference"}),
    ("travel", "Could I get the trip reference as well as your email?", {"trip reference", "email"}),
    ("travel", "Which stay is this about?", {"which stay"}),
    ("travel", "Are you happy to pay the late checkout fee?", {"accept the late checkout fee"}),
    ("travel", "Good morning. In order to locate the reservation, kindly state your e-mail address.", {"email"}),
    # neobank
    ("neobank", "What's the IBAN of the account you're sending the money to?", {"IBAN"}),
    ("neobank", "Could you give me the last 4 of the account number?", {LAST4 + "IBAN"}),
    ("neobank", "what are the last four digits of the iban", {LAST4 + "IBAN"}),
    ("neobank", "Could you give me the last 4 of the card?", {LAST4 + "card number"}),
    ("neobank", "Who is the beneficiary?", {"beneficiary name"}),
    ("neobank", "What reference should go on the transfer?", {"reference"}),
    ("neobank", "Which of the card payments do you recognise?", {"payments you recognise"}),
    ("neobank", "Do you recognise these transactions?", {"payments you recognise"}),
    ("neobank", "Please confirm your date of birth and postal code.", {"date of birth", "postal code"}),
    ("neobank", "Can I take your D.O.B.?", {"date of birth"}),
    (
        "neobank",
        "Before I change anything, what's your employee number, and your date of birth for the check?",
        {"employee number", "date of birth"},
    ),
    ("neobank", "What's the incident number?", {"incident number"}),
    ("neobank", "Do you have an INC number for this?", {"incident number"}),
    ("neobank", "Who's your line manager?", {"line manager"}),
    ("neobank", "Email, DOB and postcode please.", {"email", "date of birth", "postal code"}),
    ("neobank", "Whats the benificiary's name?", {"beneficiary name"}),
    # consulting
    ("consulting", "What's your employee number?", {"employee id"}),
    ("consulting", "Could you tell me your personnel number?", {"employee id"}),
    ("consulting", "HR number pls", {"employee id"}),
    ("consulting", "What is your payroll number?", {"employee id"}),
    ("consulting", "Can I grab your staff ID and work email?", {"employee id", "email"}),
    ("consulting", "Which access role do you need?", {"role wanted"}),
    ("consulting", "What level of access are you after?", {"role wanted"}),
    ("consulting", "Which expense report is this about?", {"expense report"}),
    ("consulting", "What's the expense claim number?", {"expense report"}),
    ("consulting", "Which system do you need access to?", {"system"}),
    ("consulting", "Which software licence are you requesting?", {"software"}),
    ("consulting", "What hardware item would you like to order?", {"item"}),
    ("consulting", "Who is leaving?", {"leaver"}),
    ("consulting", "What is the employee ID of the person leaving?", {"leaver"}),
    ("consulting", "Which engagement is this for?", {"engagement"}),
    ("consulting", "What's the engagement code?", {"engagement"}),
    (
        "consulting",
        "Hello Raj, thanks for getting in touch with the service desk. To raise the request I will need your "
        "employee ID, and could you also confirm which system this is for?",
        {"employee id", "system"},
    ),
]

# (domain, the agent's message): irrelevant, small talk, about a fact rather than for it, or for a fact not held.
NO_FACT_QUESTIONS = [
    ("travel", "Is your booking reference printed in blue ink?"),
    ("retail", "How are you today?"),
    ("retail", "Did you receive the order confirmation email?"),
    ("retail", "Has your email address changed recently?"),
    ("travel", "What's the weather like in Lisbon?"),
    ("auto_insurance", "Is the policy number the one starting with POL?"),
    ("auto_insurance", "Do you know why your claim number changed?"),
    ("retail", "What is your phone number?"),
    ("neobank", "What's your mother's maiden name?"),
    ("neobank", "What's your new postcode?"),
    ("retail", "What is your son's date of birth?"),
    ("consulting", "Could you tell me the email address of your line manager?"),
    ("travel", "When did you first get your booking reference?"),
    ("retail", "Thanks for the order number! How long have you been a customer?"),
    ("retail", "Do you have a loyalty card with us?"),
    ("travel", "Which hotel did you stay at last year?"),
    ("travel", "Are you travelling for business or pleasure?"),
    ("neobank", "Is the IBAN you gave me a German one?"),
    ("consulting", "How many digits does your employee number have?"),
    ("auto_insurance", "What is the status of your claim?"),
    ("auto_insurance", "Is your VIN on the insurance card too?"),
    ("auto_insurance", "Do you remember what colour the car is?"),
    ("consulting", "Hope you're having a lovely day! Isn't the weather great?"),
    ("auto_insurance", "Was the policy number on the letter we sent you?"),
    ("travel", "Did the hotel give you a different confirmation number?"),
    ("retail", "Does the chair order number end in 2?"),
]


def _aliases(domain: str) -> dict[str, tuple[str, ...]]:
    return importlib.import_module(f"domains.{domain}.aliases").ALIASES


def _reply(domain: str, message: str) -> str:
    user = ScriptedUser(User(says="Hello", knows=KNOWS[domain], aliases=_aliases(domain)))
    return asyncio.run(user.reply(message)).text


def _last_four(value: str) -> str:
    return re.sub(r"[^0-9A-Za-z]", "", value)[-4:]


def revealed(domain: str, text: str) -> set[str]:
    """The facts `text` gives away: whole values, or only their last four characters."""
    folded = text.lower()
    whole = {key for key, value in KNOWS[domain].items() if value.lower() in folded}
    tails = {
        LAST4 + key
        for key, value in KNOWS[domain].items()
        if key not in whole and re.search(rf"\b{re.escape(_last_four(value))}\b", text)
    }
    return whole | tails


def test_the_domains_declare_aliases_for_the_facts_their_users_hold():
    for domain in KNOWS:
        aliases = _aliases(domain)
        assert aliases, domain
        assert all(isinstance(names, tuple) and names for names in aliases.values()), domain


def test_the_paraphrase_set_is_answered_with_the_facts_asked_for_and_no_others():
    assert len(FACT_QUESTIONS) >= 60
    assert {d for d, _, _ in FACT_QUESTIONS} == set(KNOWS)
    assert len(NO_FACT_QUESTIONS) >= 15
    right, wrong, missed, given = 0, [], [], []
    for domain, message, expected in FACT_QUESTIONS:
        got = revealed(domain, _reply(domain, message))
        right += got == expected
        wrong += [f"{message!r} gave {key}" for key in sorted(got - expected)]
        missed += [f"{message!r} missed {key}" for key in sorted(expected - got)]
    for domain, message in NO_FACT_QUESTIONS:
        given += [f"{message!r} gave {key}" for key in sorted(revealed(domain, _reply(domain, message)))]
    share = right / len(FACT_QUESTIONS)
    figures = (
        f"right facts {right}/{len(FACT_QUESTIONS)} ({share:.1%}), wrong facts {len(wrong)}, "
        f"facts given to {len(NO_FACT_QUESTIONS)} no-fact questions {len(given)}; "
        f"missed: {missed}; wrong: {wrong}; given: {given}"
    )
    print(figures)
    assert share >= 0.95, figures
    assert not wrong, figures
    assert not given, figures
