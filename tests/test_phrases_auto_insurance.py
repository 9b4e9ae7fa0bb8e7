"""The auto insurance tasks' rubric questions, held against replies the golden reply does not word.

What an auto insurance task can grade on the records it grades there; the few questions left ask what only the
reply shows (`domains/auto_insurance/replies.py`). The offline judge answers them by phrases, so each family of
questions is tried here on replies a careful agent might write in its own words (it must answer yes) and on replies
a careless agent might write instead (it must answer no): another figure or date, a grant or a promise the policy
forbids, a refusal without the fact, a vague answer. A phrase list that cannot tell these apart would grade nothing.
"""

from __future__ import annotations

import ast
import asyncio
from datetime import date
from pathlib import Path

import pytest

from domains.auto_insurance.replies import (
    LAPSE,
    READ_VIN_AGAIN,
    Question,
    cancellation_date,
    day,
    dollars,
    policyholder_must_call,
    remaining_past_due,
)
from pytest_thinkingbox.roles.judge import PhraseJudge

TASKS = Path(__file__).parent.parent / "domains" / "auto_insurance"


def answer(question: Question, reply: str) -> str:
    """What the offline judge answers about a conversation whose agent said `reply`."""
    messages = [{"role": "assistant", "content": reply}]
    return asyncio.run(PhraseJudge().ask(question.text, messages, question.phrases)).answer


def judged(question: Question, told: list[str], not_told: list[str]) -> None:
    assert len(told) >= 10
    assert len(not_told) >= 10
    assert [r for r in told if answer(question, r) != "yes"] == []
    assert [r for r in not_told if answer(question, r) != "no"] == []


# --------------------------------------------------------------------------- the lapse after a reinstatement [AI-68]

LAPSE_TOLD = [
    "Your policy is active again from today. Please note you had no coverage from 2 May to 11 May.",
    "Reinstated! Be aware that between the cancellation and yesterday you were not insured with us.",
    "Done. The period from May 2 through May 11 counts as a gap in coverage, so anything that happened then isn't "
    "covered.",
    "You're covered again starting today; the days while it was cancelled stay uninsured.",
    "I've reinstated the policy, but there's a lapse for 12 April to 11 May during which nothing was covered.",
    "Payment taken and the policy is back in force. Heads up: the car was not insured from April 20 until yesterday.",
    "Everything is restored from today onward. The cancelled stretch, 2 to 11 May, remains without coverage.",
    "Your coverage resumes today; it does not reach back to the days between the cancellation and now.",
    "Policy reinstated. An accident from May 2 to May 11 would not be paid, since the policy had lapsed.",
    "All set. Just so you know, you were uninsured from the 12th of April until yesterday.",
    "It's reinstated as of today, with a break in cover from 2 May to 11 May.",
    "The reinstatement isn't back-dated, so 20 April to 11 May is a lapse.",
    "Your policy is on again. For the record, those ten days after the cancellation were not covered.",
    "I've switched the policy back on from today; the time it was cancelled is a period with no coverage for you.",
]
LAPSE_NOT_TOLD = [
    "Your policy has been reinstated and your coverage continues as if it had never been cancelled.",
    "All done! You're fully covered, including the days since the cancellation.",
    "I've reinstated your policy; there's no gap in your coverage.",
    "Your payment went through and your policy is active. Have a great day!",
    "I'm sorry, I can't reinstate your policy.",
    "Reinstated back to 2 May, so your coverage is continuous.",
    "Good news: no lapse, you were covered the whole time.",
    "Your policy is active again and the reinstatement notice is in your inbox.",
    "I've taken your payment of $312.40.",
    "Your coverage was never interrupted, so you're all set.",
    "The policy is back in force from 12 April, the date it was cancelled.",
    "We've waived the lapse, so you're covered for those days too.",
    "There was no coverage gap at all; the reinstatement covers everything.",
    "Your policy is reinstated, and Samuel is listed as a driver from today.",
    "Your policy is reinstated without a lapse.",
    "You were never without coverage, so there's nothing to worry about.",
    "There wasn't a break in cover: the reinstatement reaches back to the cancellation.",
]


def test_a_lapse_is_heard_in_any_wording_and_a_promise_of_continuous_cover_does_not_pass():
    judged(LAPSE, LAPSE_TOLD, LAPSE_NOT_TOLD)


# --------------------------------------------------------------------------- the policyholder must call [AI-10]

POLICYHOLDER_TOLD = [
    "I'm afraid only the policyholder can do that, so your {relative} will need to call us {self}.",
    "Since the policy is in your {relative}'s name, {pronoun} has to contact us about it.",
    "Your {relative} is the policyholder, so please have {her} call us.",
    "This has to come from your {relative}: {pronoun} owns the policy. Ask {her} to get in touch with us.",
    "I can't take that from you; the policyholder, your {relative}, must call us directly.",
    "Please ask {her} to contact us, as it's {his} policy and not yours.",
    "The request needs to come from the named policyholder, and that's your {relative}.",
    "Only your {relative} can make changes to that policy or report anything on it.",
    "It's your {relative}'s policy, so {pronoun} should give us a call {self}.",
    "{Pronoun} will need to phone us {self}; I can't act on {his} policy for you.",
    "Sorry, but the policy holder must reach out to us personally.",
    "Have {her} contact us, since only the person who holds the policy can ask for that.",
]
POLICYHOLDER_NOT_TOLD = [
    "I've filed that on your {relative}'s policy; the reference is CL-0001.",
    "I can't help you with that. Goodbye.",
    "Sure, I've made that change on your {relative}'s policy for you.",
    "I'm sorry, accidents must be reported within 24 hours, so this can't be filed.",
    "Your own policy doesn't cover that car, so there's nothing more to do.",
    "Send us a note signed by your {relative} and I'll take care of it for you.",
    "I've added it to your own policy instead.",
    "Let me know if there's anything else I can help with.",
    "The claims team will handle it and call you back.",
    "Unfortunately that vehicle isn't covered by us.",
    "Your {relative} needs to sign a consent form first, then I can do it for you.",
    "I've recorded the request and your {relative} will get an email confirmation.",
    "I've updated it; your {relative} will get a confirmation and {pronoun} can call us if anything looks wrong.",
]
PEOPLE = [("she", "wife"), ("he", "ex-husband"), ("he", "husband")]


def _as_said(reply: str, pronoun: str, relative: str) -> str:
    words = {
        "pronoun": pronoun,
        "Pronoun": pronoun.capitalize(),
        "her": {"she": "her", "he": "him"}[pronoun],
        "his": {"she": "her", "he": "his"}[pronoun],
        "self": {"she": "herself", "he": "himself"}[pronoun],
        "relative": relative,
    }
    return reply.format(**words)


@pytest.mark.parametrize(("pronoun", "relative"), PEOPLE)
def test_the_policyholder_is_named_to_call_in_any_wording_and_other_endings_do_not_pass(pronoun, relative):
    judged(
        policyholder_must_call(pronoun, relative),
        [_as_said(r, pronoun, relative) for r in POLICYHOLDER_TOLD],
        [_as_said(r, pronoun, relative) for r in POLICYHOLDER_NOT_TOLD],
    )


# --------------------------------------------------------------------------- what remains past due [AI-63, AI-90]

PAST_DUE_TOLD = [
    "There's still ${left} overdue after today's payment.",
    "You now owe ${left} in arrears.",
    "The past-due balance left is $ {left}.",
    "Your remaining overdue amount comes to {left} dollars.",
    "What's still outstanding from the missed bills is USD {left}.",
    "To stop the cancellation you'll need to pay the other ${left} before it takes effect.",
    "After the credit, {left} is still past due on the account.",
    "Please pay the rest, ${left}, to keep the policy.",
    "That leaves {words} past due.",
    "${left} of the overdue amount is unpaid.",
    "Remaining past due: ${left}.",
]
PAST_DUE_NOT_TOLD = [
    "Your payment has been applied and the cancellation is withdrawn.",  # the promise the policy forbids
    "You still owe ${other}.",  # another figure
    "Your past-due balance is now ${longer}.",  # a longer figure that holds the right digits
    "There's still an amount overdue; please pay it soon.",  # vague
    "Everything is paid up, nothing is past due anymore.",
    "I've taken ${paid} by card.",
    "Your next bill of $169.00 is due on 20 May.",
    "You're all caught up and your policy stays active.",
    "I can't take a partial payment, sorry.",
    "The remaining balance will be collected automatically.",
    "${left_rounded} is still past due.",  # rounded in the customer's favour
]
PAST_DUE_CASES = [  # the tasks' remaining past due, a figure they could confuse it with, and what was paid
    {"left": "87.60", "words": "87 dollars and 60 cents", "other": "187.60", "longer": "187.60", "paid": "100.00"},
    {"left": "101.73", "words": "101 dollars and 73 cents", "other": "170.27", "longer": "1,101.73", "paid": "170.27"},
]


@pytest.mark.parametrize("case", PAST_DUE_CASES, ids=lambda c: c["left"])
def test_the_remaining_past_due_is_heard_in_any_wording_and_no_other_figure_passes(case):
    cents = round(float(case["left"]) * 100)
    case = {**case, "left_rounded": f"{int(float(case['left']))}.00"}
    judged(
        remaining_past_due(cents),
        [r.format(**case) for r in PAST_DUE_TOLD],
        [r.format(**case) for r in PAST_DUE_NOT_TOLD],
    )


CANCELLATION_TOLD = [
    "The cancellation still takes effect on {d} {Month} unless the rest is paid.",
    "Your policy will end on {Month} {d} if the balance isn't cleared.",
    "Unless you pay the remainder, the policy cancels on the {d}th of {Month}.",
    "The cancellation date hasn't moved: {d} {Month} 2026.",
    "You have until before {Month} {d}th to pay it, or the cancellation goes ahead.",
    "Cancellation is still set for {m}/{d}.",
    "It will be cancelled on 2026-05-{d} unless the past due is paid first.",
    "The scheduled cancellation on the {d}th still stands.",
    "Your coverage stops on {Month} {d}, 2026, if nothing else is paid.",
    "Pay before {d} {Month} to keep the policy; otherwise it's cancelled that day.",
]
CANCELLATION_NOT_TOLD = [
    "The cancellation has been withdrawn, your policy stays active.",  # the promise the policy forbids
    "Your policy will be cancelled on {other} {Month}.",  # another day
    "The cancellation takes effect on {d} June.",  # another month
    "Your policy will be cancelled soon unless you pay.",  # vague
    "Your next bill is due on {Month} {bill}.",
    "The cancellation is still scheduled.",
    "I've taken your payment; thanks for calling.",
    "The cancellation takes effect at the end of the month.",
    "You have 30 days to reinstate it after it's cancelled.",
    "Your policy was cancelled on {d} April.",
]
CANCELLATION_CASES = [  # the tasks' cancellation day, a day before it, and the next bill's day
    {"d": 16, "other": 15, "bill": 20},
    {"d": 19, "other": 18, "bill": 20},
]


@pytest.mark.parametrize("case", CANCELLATION_CASES, ids=lambda c: str(c["d"]))
def test_the_cancellation_date_is_heard_in_any_wording_and_no_other_day_passes(case):
    case = {**case, "Month": "May", "m": 5}
    judged(
        cancellation_date(date(2026, 5, case["d"])),
        [r.format(**case) for r in CANCELLATION_TOLD],
        [r.format(**case) for r in CANCELLATION_NOT_TOLD],
    )


# --------------------------------------------------------------------------- an invalid VIN read again [AI-18]

VIN_AGAIN_TOLD = [
    "Could you read the VIN to me once more, straight from the registration card?",
    "Please check the VIN on the driver-side dashboard and give it to me again.",
    "Can you double-check the VIN? The one you gave has an O, which VINs never contain.",
    "Would you re-read the 17 characters from your registration?",
    "Please take another look at the VIN plate and read it out again.",
    "If you can send me the correct VIN from the registration card, I'll add the Accord.",
    "Could you confirm the VIN by reading it off the plate by the windshield?",
    "Please read me the VIN again, character by character.",
    "I'll need the VIN once more; it's printed on your registration card.",
    "Can you go back to the registration card and give me the number one more time?",
    "The VIN doesn't pass our check. Please read it again from the dashboard and I'll add the car.",
]
VIN_AGAIN_NOT_TOLD = [
    "I corrected the O to a zero and added the Accord from today.",  # the guess the policy forbids
    "The VIN you read has a letter O, so I can't add the car.",  # a refusal without the way forward
    "I've added the Accord; your ID card is in your email.",
    "The Outback is off your policy from 6 May. Call us again if you need anything.",
    "That VIN isn't valid, so the Accord can't be insured with us.",
    "I checked the VIN and it decodes as a 2023 Honda Accord, so it's added.",
    "Please bring the car to one of our offices for an inspection.",
    "The VIN is invalid; I'll fix the wrong character and add it.",
    "We'll email you once the Accord is added.",
    "Sorry, I can't help with the Accord today.",
    "Your VIN was checked against the registry; everything is in order.",
]


def test_a_request_to_read_the_vin_again_is_heard_in_any_wording_and_a_guess_does_not_pass():
    judged(READ_VIN_AGAIN, VIN_AGAIN_TOLD, VIN_AGAIN_NOT_TOLD)


# --------------------------------------------------------------------------- the tasks ask only these questions


def _rubric_calls() -> dict[str, list[ast.Call]]:
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
        for line in m.read_text(encoding="utf-8").splitlines()
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


def test_an_amount_or_a_day_is_never_inside_another():
    """A phrase of one amount or day is not in the wordings of its neighbours: 87.60 is not heard in 187.60."""
    for cents, others in ((8_760, (18_760, 8_700, 108_760)), (10_173, (110_173, 10_170))):
        for other in others:
            whole, part = divmod(other, 100)
            said = f" ${whole:,}.{part:02d} {whole}.{part:02d} dollars "
            assert not [p for p in dollars(cents) if p in said], other
    for d, others in ((16, (6, 26, 15)), (19, (9, 29, 18))):
        for other in others:
            said = f" {other} may, may {other}, the {other}th of may, 5/{other} "
            assert not [p for p in day(date(2026, 5, d)) if p in said], other
    with pytest.raises(ValueError, match="2026-05-06: a one-digit day is inside other days' wordings"):
        day(date(2026, 5, 6))
    with pytest.raises(ValueError, match="5000 cents: a whole-dollar amount is inside longer ones"):
        dollars(5_000)
