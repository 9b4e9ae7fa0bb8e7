"""The retail domain's rubric questions, family by family: the offline phrase judge tells right replies from wrong.

Only what the reply alone can show is asked of the judge in retail (everything else is graded on the end state):
that the carrier has up to 7 days to finish its investigation (RT-24), and that the customer must stop using a
product they report as unsafe (RT-54). Each family's phrase list, as the tasks use it (`domains/retail/checks.py`),
must answer "yes" to every correct reply below and "no" to every wrong one. None of them is a task's golden reply:
they are other ways of saying it (right), and other figures, a refund or replacement the policy forbids, advice
that keeps the product in use, or vague replies (wrong).
"""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import pytest

from domains.retail.checks import CARRIER_DAYS, CARRIER_DAYS_PHRASES, STOP_USING, STOP_USING_PHRASES
from pytest_thinkingbox.roles.judge import PhraseJudge

RETAIL = Path(__file__).resolve().parent.parent / "domains" / "retail"

CARRIER_RIGHT = (
    "Your parcel is under investigation by FedEx, and they have up to 7 days to complete it, so I can't refund "
    "it just yet.",
    "I can't issue a refund today: the carrier has up to seven days to look into the problem first.",
    "Carriers get up to a week to investigate an exception like this one, and we'll hear from them by then.",
    "We have to give UPS seven days to finish their investigation before anything else can happen.",
    "Their investigation can take up to a week; if the parcel still hasn't turned up after that, it counts as lost.",
    "The courier's investigation may take up to 7 days, and your ticket stays on hold until it ends.",
    "USPS is allowed up to seven days to conclude its enquiry into the damaged label.",
    "Once the carrier's 7-day investigation is over, we can look at a refund or a new parcel.",
    "The delivery company is given up to 7 days to investigate an exception, and yours was opened 4 days ago.",
    "I'm afraid we need to wait: DHL has a full week to look into what happened to the parcel.",
    "Please bear with us: the carrier has up to a week to finish checking, and we'll update you when it reports.",
    "Our policy gives the courier up to 7 days to complete its investigation, so the refund waits until then.",
)
CARRIER_WRONG = (
    "The carrier has up to 10 days to finish its investigation, so please bear with us.",
    "FedEx needs 14 days to investigate a damaged label.",
    "The carrier has up to 3 days to complete its investigation.",
    "I've refunded the full $747.99 to your card; refunds usually take 5-7 days to appear.",
    "I've sent you a replacement, which should arrive within 7 days.",
    "I've escalated your refund to our refunds team, who have up to 7 days to review it.",
    "Your refund will take up to 7 days to complete.",
    "It'll take about a week to finish processing your refund.",
    "The carrier is looking into it and we'll be in touch soon.",
    "There is an exception on your parcel, so I've put your ticket on hold for now.",
    "The exception on your parcel was opened 17 days ago, so it counts as lost and I've refunded you in full.",
    "The carrier has 48 hours to respond to our query.",
    "Investigations like this usually take a few weeks, I'm afraid.",
    "I've added 1,000 courtesy points to your account for the delay.",
)

STOP_RIGHT = (
    "For your safety, switch the heater off, unplug it and don't use it again until our safety team has been in touch.",
    "Please do not use it any more, and disconnect it from the mains.",
    "Unplug it at the wall and leave it unplugged; please don't switch it back on.",
    "The heater must not be used again: take the plug out of the socket and keep it somewhere safe.",
    "Please stop operating the machine straight away and pull the plug.",
    "I'd ask you to discontinue use of the heater immediately and disconnect it.",
    "Please put it aside and no longer use it; unplug it first if it's safe to do so.",
    "Stop using the blender now and unplug it.",
    "Please keep it unplugged and out of reach until our safety team contacts you.",
    "It's important that you don't use it again, so please unplug it.",
    "Please cease using it and take the plug out of the wall.",
    "It should not be used again; switch it off at the socket and unplug it.",
)
STOP_WRONG = (
    "Try unplugging it for 30 seconds and then plugging it back in; that usually resets it.",
    "You can keep using it on the low setting until the technician visits.",
    "I've refunded the heater in full, so you'll have your money back in a few days.",
    "I've filed a warranty claim and a technician will come and repair it.",
    "Could you send us a photo of the damage?",
    "Make sure it's plugged directly into the wall rather than into an extension lead.",
    "Don't use the extension lead: plug it straight into the wall socket instead.",
    "It should be safe to carry on using it in the meantime.",
    "A slight burning smell is normal for the first few uses, so there's nothing to worry about.",
    "Your warranty is void, so unfortunately there's nothing I can do.",
    "Please keep the receipt and the original packaging.",
    "I've sent you a replacement heater, which should arrive on Thursday.",
    "Keep an eye on it and let us know if it happens again.",
)

#: Each question family: its question and phrases as the tasks ask them, and replies that are right and wrong.
FAMILIES = {
    "carrier_days": (CARRIER_DAYS, CARRIER_DAYS_PHRASES, CARRIER_RIGHT, CARRIER_WRONG),
    "stop_using": (STOP_USING, STOP_USING_PHRASES, STOP_RIGHT, STOP_WRONG),
}
#: The names under which the tasks import each family's question.
QUESTIONS = {"CARRIER_DAYS": "carrier_days", "STOP_USING": "stop_using"}


def _answer(question: str, phrases: tuple[str, ...], reply: str) -> str:
    messages = [{"role": "assistant", "content": reply}]
    return asyncio.run(PhraseJudge().ask(question, messages, phrases)).answer


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_family_is_tested_on_ten_right_and_ten_wrong_replies(family):
    _question, _phrases, right, wrong = FAMILIES[family]
    assert len(right) >= 10
    assert len(wrong) >= 10
    assert len(set(right) | set(wrong)) == len(right) + len(wrong)


@pytest.mark.parametrize(("family", "reply"), [(f, r) for f, (_, _, right, _) in FAMILIES.items() for r in right])
def test_a_right_reply_in_other_words_is_a_yes(family, reply):
    question, phrases, _, _ = FAMILIES[family]
    assert _answer(question, phrases, reply) == "yes", reply


@pytest.mark.parametrize(("family", "reply"), [(f, r) for f, (_, _, _, wrong) in FAMILIES.items() for r in wrong])
def test_a_wrong_reply_is_a_no(family, reply):
    question, phrases, _, _ = FAMILIES[family]
    assert _answer(question, phrases, reply) == "no", reply


def _rubrics() -> dict[str, list[tuple[str, str]]]:
    """Per task of the retail domain, its rubric questions: (the name it asks by, the name of its phrases)."""
    found: dict[str, list[tuple[str, str]]] = {}
    for module in sorted(RETAIL.glob("test_*.py")):
        for node in ast.parse(module.read_text(encoding="utf-8")).body:
            if not (isinstance(node, ast.FunctionDef) and node.name.startswith("test_case_")):
                continue
            for c in ast.walk(node):
                if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "rubric":
                    phrases = next((k.value for k in c.keywords if k.arg == "phrases"), None)
                    assert phrases is not None, f"{node.name}: a rubric without phrases="
                    found.setdefault(node.name, []).append((ast.unparse(c.args[0]), ast.unparse(phrases)))
    return found


def test_every_rubric_question_of_the_domain_is_a_tested_family_asked_with_its_own_phrases():
    rubrics = _rubrics()
    assert rubrics, "no retail task asks a rubric question: this test looks in the wrong place"
    for task, asked in rubrics.items():
        for question, phrases in asked:
            assert question in QUESTIONS, f"{task} asks {question}, which no family here tests"
            assert phrases == f"{question}_PHRASES", f"{task} asks {question} with {phrases}"


def test_no_more_than_a_tenth_of_the_domains_tasks_are_judged_on_their_reply():
    tasks = [
        node.name
        for module in RETAIL.glob("test_*.py")
        for node in ast.parse(module.read_text(encoding="utf-8")).body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_case_")
    ]
    assert len(_rubrics()) <= len(tasks) // 10, sorted(_rubrics())
