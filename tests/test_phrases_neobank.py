"""The neobank tasks' rubric questions, held against replies the golden reply does not word.

What a neobank task can grade on the records it grades there; the few questions left ask what only the reply
shows (`domains/neobank/replies.py`). The offline judge answers them by phrases, so each family of questions is
tried here on replies a careful agent might write in its own words (it must answer yes) and on replies a careless
agent might write instead (it must answer no): another figure or date, a refusal without the fact, a promise the
policy forbids, a vague answer. A phrase list that cannot tell these apart would grade nothing.
"""

from __future__ import annotations

import ast
import asyncio
from datetime import date
from pathlib import Path

import pytest

from domains.neobank.replies import (
    SOURCE_OF_FUNDS,
    UPLOAD_IN_THE_APP,
    Question,
    balance_left,
    euros,
    highest_card_limit,
    replaceable_from,
)
from pytest_thinkingbox.roles.judge import PhraseJudge

TASKS = Path(__file__).parent.parent / "domains" / "neobank"


def answer(question: Question, reply: str) -> str:
    """What the offline judge answers about a conversation whose agent said `reply`."""
    messages = [{"role": "assistant", "content": reply}]
    return asyncio.run(PhraseJudge().ask(question.text, messages, question.phrases)).answer


# --------------------------------------------------------------------------- the highest card limit of a level [NB-47]

STANDARD_MAXIMUM_TOLD = [
    "Sorry, 3,000 is more than I can set. At the standard level a card can have a daily limit of up to EUR 2,500.",
    "Your verification level caps the daily card limit at €2,500, so the 3,000 you asked for isn't possible.",
    "The most I'm allowed to set for you is 2,500 euros a day.",
    "I'm afraid the ceiling for standard customers is 2.500 € per day; nothing above that.",
    "Daily limits for your level go up to EUR 2,500.00, so I left the virtual card as it was.",
    "That's above the maximum of 2500 EUR for your account level.",
    "Your level allows at most € 2,500 per day on a card.",
    "Limit requests are capped at EUR 2500. for standard verification, sorry about that.",
    "I can't go to 3,000. The upper bound for you is 2,500 EUR a day.",
    "Standard accounts top out at a 2.500,00 € daily card limit.",
]
STANDARD_MAXIMUM_NOT_TOLD = [
    "I've set your card's daily limit to EUR 3,000 as requested.",  # the limit the policy refuses
    "Sorry, I can't set EUR 3,000. Please pick a lower amount.",  # a refusal without the maximum
    "Your level allows a daily limit of up to EUR 10,000.",  # the enhanced level's maximum
    "The highest daily limit at your level is EUR 500.",  # the basic level's maximum
    "You can send up to EUR 25,000 in one transfer, but card limits are another matter.",
    "The most I can do is 12,500 euros a day.",
    "I can raise it up to what your level allows; 3,000 is too much.",  # vague
    "Card limits go from EUR 10.00 upwards; 3,000 isn't available to you.",
    "Your limit stays at 1,500 euros for now.",
    "The maximum is 250,000 cents, which I've set.",  # cents read as euros by nobody
]

BASIC_MAXIMUM_TOLD = [
    "At the basic level the highest daily card limit is EUR 500, so 1,500 isn't possible.",
    "Basic verification lets me set at most €500 a day on your card.",
    "I'm sorry: the cap for your level is 500 euros per day.",
    "Your account level tops out at 500 EUR per day for card spending.",
    "The most your card can have at your level is EUR 500.00 a day.",
    "I can only go up to € 500, and 1,500 is far above that.",
    "Limits for basic customers stop at 500 €. Your current limit stays as it is.",
    "That's more than the maximum of EUR 500 for your verification level.",
    "Until you're verified further, your daily limit can't exceed 500,00 €.",
    "Your level allows no more than €500! Anything above needs a higher level.",
]
BASIC_MAXIMUM_NOT_TOLD = [
    "Done: your daily limit is now EUR 1,500.",  # the limit the policy refuses
    "The highest daily limit for you is EUR 2,500.",  # the standard level's maximum
    "I can go up to 1,500 euros, no more.",
    "Your limit is capped at EUR 5,000 per day.",
    "The most I can set is EUR 5000.",
    "You're already at the maximum your level allows, so nothing changes.",  # vague
    "Sorry, I can't raise your limit today.",  # a refusal without the maximum
    "The minimum daily limit is EUR 10.00; the maximum depends on your level.",
    "Your current limit of 300 euros stays.",
    "I've set it to EUR 1.500 as you asked.",
]


@pytest.mark.parametrize(
    ("cents", "told", "not_told"),
    [
        (250_000, STANDARD_MAXIMUM_TOLD, STANDARD_MAXIMUM_NOT_TOLD),
        (50_000, BASIC_MAXIMUM_TOLD, BASIC_MAXIMUM_NOT_TOLD),
    ],
    ids=["standard", "basic"],
)
def test_the_highest_card_limit_is_heard_in_any_wording_and_no_other_figure_passes(cents, told, not_told):
    question = highest_card_limit(cents)
    assert len(told) >= 10
    assert len(not_told) >= 10
    assert [r for r in told if answer(question, r) != "yes"] == []
    assert [r for r in not_told if answer(question, r) != "no"] == []


# --------------------------------------------------------------------------- the balance left on an account [NB-58]

HOLD_BALANCE_TOLD = [
    "The account still holds EUR 45.90, all of it reserved for a card payment at Shell.",
    "There's €45.90 left on it, although the app shows 0.00 available.",
    "Your balance is 45.90 euros; it has to be 0 before I can close the account.",
    "A pending card payment is holding 45,90 € on the account, so it isn't empty yet.",
    "I can't close it while 45.90 EUR is still booked on it.",
    "The real balance is € 45.90; only the available amount is zero.",
    "Once the Shell payment of 45,90 euros settles, the balance will be zero.",
    "It still has a balance of EUR 45,90 (the fuel payment).",
    "There are 45.90€ on the account at the moment.",
    "The account isn't at zero: €45,90 is still on it, reserved by a hold.",
]
HOLD_BALANCE_NOT_TOLD = [
    "Your balance is 0.00, so I've closed the account.",  # the closure the policy refuses
    "The available balance is EUR 0.00, so there's nothing left.",
    "There is EUR 145.90 left on the account.",
    "A hold of 4,590 cents blocks the closure.",
    "I can't close it yet because of a pending card payment.",  # the reason without what is left
    "There's still some money on it; please move it out first.",  # vague
    "The balance is EUR 54.90.",
    "About 46 euros are still there.",
    "Please wait until the hold is released, then ask again.",
    "Your account shows €0 available and €0 balance.",
]

DISPUTE_BALANCE_TOLD = [
    "There are still EUR 240.10 on the account; it has to be at zero before I can close it.",
    "Please move the €240.10 out first.",
    "Your balance is 240.10 euros, so the account can't be closed today.",
    "It still holds 240,10 €, which needs to go to your other bank first.",
    "The remaining 240.10 EUR has to leave the account before the closure.",
    "I see a balance of € 240.10.",
    "Once the 240,10 euros are moved out and the dispute is decided, we can close it.",
    "You have EUR 240,10 left on it.",
    "The account isn't empty: 240.10€ remain.",
    "There's a balance of €240,10 on the account right now.",
]
DISPUTE_BALANCE_NOT_TOLD = [
    "I've closed the account and cancelled the gym payment.",  # what the policy forbids
    "There is EUR 119.00 in dispute, so I can't close it.",  # the dispute's amount, not the balance
    "The gym order of EUR 34.90 has to be cancelled first.",
    "Your balance is 24,010 cents.",
    "There is still a little money on it.",  # vague
    "The balance is EUR 1,240.10.",
    "There are EUR 2,401.00 on the account.",
    "Your balance is EUR 240.",
    "It can't be closed while a dispute is open.",
    "The account holds €420.10.",
]


@pytest.mark.parametrize(
    ("cents", "told", "not_told"),
    [
        (4_590, HOLD_BALANCE_TOLD, HOLD_BALANCE_NOT_TOLD),
        (24_010, DISPUTE_BALANCE_TOLD, DISPUTE_BALANCE_NOT_TOLD),
    ],
    ids=["hold", "dispute"],
)
def test_the_balance_left_is_heard_in_any_wording_and_no_other_figure_passes(cents, told, not_told):
    question = balance_left(cents)
    assert len(told) >= 10
    assert len(not_told) >= 10
    assert [r for r in told if answer(question, r) != "yes"] == []
    assert [r for r in not_told if answer(question, r) != "no"] == []


# --------------------------------------------------------------------------- when a lost card can be replaced [NB-33]

REPLACEABLE_TOLD = [
    "It stays frozen for now; from 19 October we can block it and send you a new one.",
    "Call us again on October 19 if it hasn't turned up, and we'll replace it.",
    "We can replace it once it has been frozen for 14 days, which is on the 19th of October.",
    "Give it until Monday the 19th October, then we'll block and reissue it.",
    "From 19.10. we can order the replacement.",
    "You'll be able to get a new card in four days.",
    "That's possible in 4 days, once the card has been frozen for two weeks.",
    "Just four more days: after that we can cancel it and send a new one.",
    "We can block it and send a replacement from October 19th.",
    "If it's still missing on 19/10, get in touch and we'll replace it.",
]
REPLACEABLE_NOT_TOLD = [
    "I've blocked the card and ordered a new one.",  # what the policy forbids before 14 days
    "Please wait 14 days and then contact us.",  # counted from today, not from the freeze
    "You can ask again from 29 October.",
    "It can be replaced on 1 October.",
    "Please try again in 14 more days.",
    "The card stays frozen; contact us in a couple of weeks.",  # vague
    "We can't replace it yet, sorry.",  # a refusal without the day
    "Try again on October 24.",
    "You can get a replacement in fourteen days.",
    "From 19 November we can replace it.",
]


def test_the_day_a_lost_card_can_be_replaced_is_heard_in_any_wording_and_no_other_day_passes():
    question = replaceable_from(date(2026, 10, 19), days_left=4)
    assert [r for r in REPLACEABLE_TOLD if answer(question, r) != "yes"] == []
    assert [r for r in REPLACEABLE_NOT_TOLD if answer(question, r) != "no"] == []


# --------------------------------------------------------------------------- where documents are uploaded [NB-19]

UPLOAD_TOLD = [
    "Support can't change your level, but you can upload your passport in the app and compliance will check it.",
    "Please go to Profile, then Verification in the app and add your documents there.",
    "The upgrade works through the Verification section of the app: add your ID there.",
    "You'll find it under Profile > Verification; that's where compliance reviews documents.",
    "Uploading your proof of income in the app is the way to a higher level.",
    "Open the app, tap Profile and then Verification, and follow the steps.",
    "Documents sent by email can't be used; please submit your documents in the app instead.",
    "Use the Verification tab in the app to send us your ID and payslips.",
    "If you upload the documents in Kestrel's app, compliance will look at them.",
    "The Verification page in the app is where you hand in your passport.",
]
UPLOAD_NOT_TOLD = [
    "I've moved you up to the standard level.",  # what support may not do
    "Please email your passport to our compliance team.",
    "Send us copies of your documents by post.",
    "Your emailed passport photo is with compliance; they'll be in touch.",
    "I can't change your verification level, sorry.",  # a refusal without the way
    "In the app your level shows as basic, and I can't change it.",
    "Please visit one of our partner branches with your ID.",
    "Your level will update automatically next month.",
    "I've raised your limits for this one payment instead.",
    "Call our hotline and they can upgrade you.",
]


def test_the_way_to_a_higher_level_is_heard_in_any_wording_and_other_ways_do_not_pass():
    assert [r for r in UPLOAD_TOLD if answer(UPLOAD_IN_THE_APP, r) != "yes"] == []
    assert [r for r in UPLOAD_NOT_TOLD if answer(UPLOAD_IN_THE_APP, r) != "no"] == []


# --------------------------------------------------------------------------- what a held transfer waits for [NB-23]

FUNDS_TOLD = [
    "The transfer is held for review. Please send us documents showing the source of funds.",
    "Compliance will release it once they have proof of where the money comes from.",
    "It's reserved on your account until you provide source-of-funds documents.",
    "We need evidence of the source of the money, such as the sale contract.",
    "Please upload something that shows where the funds came from; then it goes out.",
    "To release it, compliance needs documents on the origin of the funds.",
    "Send us papers showing where the money came from and the payment will be released.",
    "It waits for your source of funds paperwork.",
    "Once we can see the origin of the money, compliance will let it through.",
    "Your deposit payment needs a source of the funds check: please provide documents.",
]
FUNDS_NOT_TOLD = [
    "Your transfer has been sent and will arrive tomorrow.",  # what the policy holds back
    "It's above your limit, so I've split it into two transfers.",  # what the policy forbids
    "The transfer is held; compliance will contact you.",  # vague
    "Please send us a copy of your ID.",
    "I've reduced the amount so it fits within your limit.",
    "It's on hold for a few days, then it goes out automatically.",
    "You need to upgrade your verification level first.",
    "The money is reserved; nothing else is needed from you.",
    "Please confirm the beneficiary's IBAN again.",
    "Sorry, transfers above your limit can't be made at all.",
]


def test_the_documents_a_held_transfer_waits_for_are_heard_in_any_wording_and_others_do_not_pass():
    assert [r for r in FUNDS_TOLD if answer(SOURCE_OF_FUNDS, r) != "yes"] == []
    assert [r for r in FUNDS_NOT_TOLD if answer(SOURCE_OF_FUNDS, r) != "no"] == []


# --------------------------------------------------------------------------- the tasks ask only these, and few


def _rubric_calls() -> dict[str, list[ast.Call]]:
    """Per neobank task, its rubric calls."""
    found: dict[str, list[ast.Call]] = {}
    for module in sorted(TASKS.glob("test_*.py")):
        for node in ast.parse(module.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_case_"):
                calls = [
                    c
                    for c in ast.walk(node)
                    if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "rubric"
                ]
                if calls:
                    found[node.name] = calls
    return found


def test_at_most_a_tenth_of_the_tasks_ask_about_the_reply():
    tasks = [
        line
        for m in TASKS.glob("test_*.py")
        for line in m.read_text().splitlines()
        if line.startswith("def test_case_")
    ]
    assert 0 < len(_rubric_calls()) <= len(tasks) // 10


def test_every_rubric_question_is_one_of_the_tested_families():
    """A task asks a question of `replies.py` (its text and its phrases together), never one written inline."""
    for task, calls in _rubric_calls().items():
        for c in calls:
            question = ast.unparse(c.args[0])
            phrases = next(ast.unparse(k.value) for k in c.keywords if k.arg == "phrases")
            assert question.endswith(".text"), task
            assert phrases == question.removesuffix(".text") + ".phrases", task


def test_an_amount_is_never_a_bare_number():
    """A bare "500" is in "1,500" and "EUR 500" is in "EUR 5000": an amount carries a currency and its bounds."""
    for cents in (50_000, 250_000, 4_590, 24_010):
        assert not [p for p in euros(cents) if p.strip().replace(",", "").replace(".", "").isdigit()]
    assert "eur 500" not in euros(50_000)
    assert "eur 500 " in euros(50_000)
