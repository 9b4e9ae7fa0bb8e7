"""The travel domain's rubric questions, judged offline, against replies worded otherwise than the tasks' own.

Every `run.rubric(...)` of `domains/travel` is read from the task modules (its question and the phrase helper of
`domains/travel/phrases.py` it uses) and grouped into its question family. For each family, the phrase judge must
say "yes" to at least ten correct replies and "no" to at least ten wrong ones, for every task that asks it:

* the refund the payments team sends (`refund_amount`): the amount written the ways people write euros; wrong
  replies give another figure (the amount before the fee, a night, half of it, the stay's total), refuse, promise
  what the policy forbids (a split, a refund by the agent now) or stay vague;
* telling a suspended account's traveller to contact the travel manager (`contact_travel_manager`): wrong replies
  do what was asked, send the traveller elsewhere, or have the agent promise to contact the manager instead.

A phrase judge cannot see that a right figure comes with a wrong promise ("I've refunded EUR 1,436.00 myself");
the tasks grade that in the state (no refund row may exist), not in the reply.
"""

from __future__ import annotations

import ast
import asyncio
from dataclasses import dataclass
from pathlib import Path

import pytest

from domains.travel import phrases as helpers
from pytest_thinkingbox.roles.judge import PhraseJudge

TASKS = Path(__file__).resolve().parents[1] / "domains" / "travel"
FAMILIES = {"refund_amount": "refund", "contact_travel_manager": "travel manager"}  # helper: the question's subject


@dataclass(frozen=True)
class Rubric:
    task: str
    question: str
    helper: str
    args: tuple
    phrases: tuple[str, ...]


def _rubrics() -> list[Rubric]:
    """Every rubric question the travel tasks ask, with the phrase helper call that gives its phrases."""
    found = []
    for module in sorted(TASKS.glob("test_*.py")):
        tree = ast.parse(module.read_text())
        for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_case_")):
            for node in ast.walk(fn):
                if not (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "rubric"):
                    continue
                question = ast.literal_eval(node.args[0])
                given = next(k.value for k in node.keywords if k.arg == "phrases")
                helper_only = f"{fn.name}: phrases must come from a helper of domains/travel/phrases.py, not a list"
                assert isinstance(given, ast.Call), helper_only
                assert isinstance(given.func, ast.Name), helper_only
                args = tuple(ast.literal_eval(a) for a in given.args)
                phrases = getattr(helpers, given.func.id)(*args)
                found.append(Rubric(fn.name, question, given.func.id, args, phrases))
    return found


def _tasks() -> list[str]:
    return [
        n.name
        for module in sorted(TASKS.glob("test_*.py"))
        for n in ast.parse(module.read_text()).body
        if isinstance(n, ast.FunctionDef) and n.name.startswith("test_case_")
    ]


RUBRICS = _rubrics()


def _family(helper: str) -> list[Rubric]:
    return [r for r in RUBRICS if r.helper == helper]


def judged(rubric: Rubric, reply: str) -> str:
    messages = [{"role": "assistant", "content": reply}]
    return asyncio.run(PhraseJudge().ask(rubric.question, messages, rubric.phrases)).answer


# --------------------------------------------------------------------------- the domain's rubrics as a whole


def test_rubric_questions_stay_under_a_tenth_of_the_tasks():
    tasks = _tasks()
    asking = {r.task for r in RUBRICS}
    assert len(tasks) == 130
    assert len(asking) <= len(tasks) // 10, sorted(asking)


def test_every_rubric_belongs_to_a_tested_family():
    assert RUBRICS
    for rubric in RUBRICS:
        assert rubric.helper in FAMILIES, rubric
        assert FAMILIES[rubric.helper] in rubric.question.lower(), rubric


def test_every_refund_rubric_has_wrong_figures_to_be_told_apart_from():
    assert {r.task for r in _family("refund_amount")} == set(WRONG_FIGURES)
    for rubric in _family("refund_amount"):
        assert rubric.args[0] not in WRONG_FIGURES[rubric.task]


# --------------------------------------------------------------------------- the refund the payments team sends


def _euros(cents: int, style: int) -> str:
    """`cents` the way one of ten writers puts it: English, continental, spaced, bare, in words of currency."""
    whole, rest = divmod(cents, 100)
    decimals = f"{rest:02d}"
    grouped = f"{whole:,}"
    continental = grouped.replace(",", ".")
    return [
        f"EUR {grouped}.{decimals}",
        f"€{continental},{decimals}",
        f"{whole} euros" if not rest else f"{whole}.{decimals} euros",
        f"{grouped} EUR" if not rest else f"{grouped}.{decimals} EUR",
        f"€{grouped}" if not rest else f"€{grouped}.{decimals}",
        f"EUR {grouped.replace(',', ' ')}" + ("" if not rest else f",{decimals}"),
        f"{continental},{decimals} €",
        f"{whole}.{decimals} EUR",
        f"€ {grouped}.{decimals}",
        f"{cents:,} cents",
    ][style % 10]


REFUND_CORRECT = (
    "Your refund comes to {a}. That's above what I'm allowed to refund myself, so our payments team will pay it "
    "to your card.",
    "You'll get {a} back; refunds of that size are paid out by our payments colleagues, in one go.",
    "The amount due to you is {a}, and it will be sent by our payments team rather than by me.",
    "I've passed the refund of {a} to our payments department, who will transfer it to you.",
    "Payments will send {a} to your card in a single refund.",
    "What you're owed, {a}, is over my limit, so the payments team is handling it.",
    "A refund of {a} has been handed over to our payments team.",
    "{a} will come back to your card from our payments team within a few working days.",
    "The total coming back to you is {a} - the payments team processes refunds that large.",
    "I can't issue a refund that large myself or split it, but our payments team will transfer the full {a}.",
    "Our finance colleagues will pay back {a}; you don't need to do anything.",
)
REFUND_WRONG_FIGURE = (
    "Your refund comes to {a}; our payments team will send it to your card.",
    "I've arranged for {a} to go back to you.",
    "You'll receive {a} from us within a few days.",
)
REFUND_WRONG = (
    "No refund is due for this, so nothing will come back to your card.",
    "Unfortunately I can't refund anything on this booking.",
    "Our payments team will be in touch about your refund.",
    "You'll get back what you're owed in the next few days.",
    "I've refunded the money to your card myself; it should arrive this week.",
    "I've split your refund into two smaller payments so that each is within my limit.",
    "Your request has been handled. Have a good day.",
    "The refund is with another team, and they will tell you the amount.",
    "I've sent your request to the hotel; they will refund you directly.",
    "Your booking has been updated as you asked.",
)
# per task: figures a careless agent would give instead (before the fee, a night, half, the stay's total)
WRONG_FIGURES = {
    "test_case_TR009_001": (186_000, 124_000, 91_750),  # no fee taken, two nights, half
    "test_case_TR009_003": (72_500, 142_500, 29_000, 165_000),  # half, less a fee, one night, the new total
    "test_case_TR012_002": (143_600, 35_500, 70_550),  # no fee taken, the Amsterdam refund, half
    "test_case_TR016_002": (100_000, 20_000, 430_000, 550_000),  # up to the limit, the rest, new and old totals
    "test_case_TR024_001": (186_000, 62_000, 121_500),  # three nights, one night, less a fee
    "test_case_TR024_002": (141_100, 71_800, 100_000),  # less a fee, half, up to the limit
    "test_case_TR024_004": (104_000, 96_500, 99_000),  # no fee taken, the traveller's 965, the room alone
}


def _refund_cases(correct: bool) -> list:
    cases = []
    for rubric in _family("refund_amount"):
        if correct:
            replies = [t.format(a=_euros(rubric.args[0], i)) for i, t in enumerate(REFUND_CORRECT)]
        else:
            figures = WRONG_FIGURES.get(rubric.task, ())
            replies = [
                t.format(a=_euros(f, i + j)) for i, f in enumerate(figures) for j, t in enumerate(REFUND_WRONG_FIGURE)
            ]
            replies += REFUND_WRONG
        cases += [pytest.param(rubric, reply, id=f"{rubric.task}-{n}") for n, reply in enumerate(replies)]
    return cases


@pytest.mark.parametrize(("rubric", "reply"), _refund_cases(correct=True))
def test_refund_amount_correct_replies_pass(rubric, reply):
    assert judged(rubric, reply) == "yes", reply


@pytest.mark.parametrize(("rubric", "reply"), _refund_cases(correct=False))
def test_refund_amount_wrong_replies_fail(rubric, reply):
    assert judged(rubric, reply) == "no", reply


def test_refund_amount_families_have_ten_of_each():
    for rubric in _family("refund_amount"):
        right = [c for c in _refund_cases(True) if c.values[0] == rubric]
        wrong = [c for c in _refund_cases(False) if c.values[0] == rubric]
        assert len(right) >= 10, rubric.task
        assert len(wrong) >= 10, rubric.task


def test_refund_amount_forms():
    assert helpers.refund_amount(143_600)[:4] == ("1,436", "1436", "1.436", "1 436")
    with pytest.raises(ValueError, match="whole euro"):
        helpers.refund_amount(70_550)


# --------------------------------------------------------------------------- contact the travel manager

MANAGER_CORRECT = (
    "I'm afraid your company's travel programme is suspended, so I can't make any changes. Please get in touch "
    "with your travel manager about it.",
    "Your account is suspended at the moment. You'll need to speak to your travel manager, {name}, to sort it out.",
    "Nothing can be booked or changed while the programme is suspended; I'd suggest you contact {name}, your "
    "travel manager.",
    "Unfortunately I can't help with this one: the travel programme has been stopped. Contact your travel manager "
    "for the next steps.",
    "The programme is paused, so I've left everything as it is. You should talk to your travel manager about the "
    "suspension.",
    "Sorry, no changes are possible on a suspended account. The person to speak to is your travel manager.",
    "I can't move anything while your company's account is suspended. Please raise this with your travel manager.",
    "Because the account is suspended I can't do this. I'd recommend you reach out to {name}, who manages travel "
    "for your company.",
    "Your employer's travel programme with us is on pause. Best to check with your travel manager what happens next.",
    "I'm unable to make the booking, as the account is suspended. You can email your travel manager, {name}, about it.",
    "All changes are blocked while the programme is suspended, so please take this up with your company's travel "
    "manager.",
)
MANAGER_WRONG = (
    "Done! I've booked the room for you.",
    "I've cancelled the booking and refunded it to your card.",
    "I can't do that right now. Is there anything else I can help with?",
    "Your request has been handled. Have a good day.",
    "I'll contact your travel manager and ask her to lift the suspension, then I'll make the change.",
    "I've asked your travel manager to approve an exception; once she does, I'll book it.",
    "Please contact our accounts receivable team about the overdue invoice.",
    "The account is on credit hold, so please pay the open invoice and try again.",
    "Please contact the hotel directly to arrange this.",
    "I'll get in touch with your travel manager for you and come back to you tomorrow.",
    "Unfortunately there's a problem with your account. We'll look into it.",
    "I'm going to reach out to your travel manager about this.",
)


def _manager_cases(replies: tuple[str, ...]) -> list:
    return [
        pytest.param(
            rubric, reply.format(name=rubric.args[0] if rubric.args else "your travel manager"), id=f"{rubric.task}-{n}"
        )
        for rubric in _family("contact_travel_manager")
        for n, reply in enumerate(replies)
    ]


@pytest.mark.parametrize(("rubric", "reply"), _manager_cases(MANAGER_CORRECT))
def test_contact_travel_manager_correct_replies_pass(rubric, reply):
    assert judged(rubric, reply) == "yes", reply


@pytest.mark.parametrize(("rubric", "reply"), _manager_cases(MANAGER_WRONG))
def test_contact_travel_manager_wrong_replies_fail(rubric, reply):
    assert judged(rubric, reply) == "no", reply


def test_each_family_is_asked_and_has_ten_replies_of_each_kind():
    assert len(_family("contact_travel_manager")) >= 3
    assert len(_family("refund_amount")) >= 7
    assert len(MANAGER_CORRECT) >= 10
    assert len(MANAGER_WRONG) >= 10
    assert len(REFUND_CORRECT) >= 10
    assert len(REFUND_WRONG) >= 10
