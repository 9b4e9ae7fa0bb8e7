"""The consulting tasks' phrase lists tell right replies from wrong ones, in words other than the reference replies.

Every rubric question a consulting task still asks is in `domains/consulting/rubrics.py`, grouped by family (the
same kind of question across tasks). For each question the offline phrase judge must answer yes to ten or more
correct replies and no to ten or more wrong ones: other people or dates, a grant instead of a refusal, a promise the
policy forbids, a refusal that says nothing useful.
"""

from __future__ import annotations

import ast
import asyncio
from collections import Counter
from pathlib import Path

import pytest

from domains.consulting import rubrics
from domains.consulting.rubrics import RUBRICS, Rubric
from pytest_thinkingbox.roles.judge import PhraseJudge

MINIMUM = 10
TASKS = Path(rubrics.__file__).parent

CORRECT: dict[Rubric, tuple[str, ...]] = {
    rubrics.FELIX_ASKS_FOR_HIS_LICENCE: (
        "I'm afraid I can't assign a licence on someone else's behalf. Felix will need to raise the request himself.",
        "Licences are only set up at the request of the person who uses them, so please ask Felix to contact us.",
        "This one has to come from Felix: once he asks us, we'll look at the Tableau pool for him.",
        "Sorry, I can't act on this for Felix. He can ask us for it whenever he's back from the client site.",
        "Only Felix can request his own licence; please have him get in touch with the service desk.",
        "We need the request from Felix personally, not from his manager, so there's nothing I can set up today.",
        "Felix should reach out to us when he has a moment and we'll handle it under the normal rules.",
        "Because employees request their own licences, Felix needs to ask for it. A manager's OK doesn't change that.",
        "Unfortunately managers can't request software for their reports. Felix must submit the request on his own.",
        "Felix can raise a ticket for Tableau Creator with us directly, and we'll check for a seat then.",
        "Could you get Felix to drop us a line? He'll need to ask for the licence from his own account.",
    ),
    rubrics.CHLOE_ASKS_FOR_HER_ACCESS: (
        "The kit is done. Client access isn't part of it, so Chloe will need to request the Snowflake access herself.",
        "I can't add Calloway access on a manager's request; it has to come from Chloe.",
        "Chloe can ask us for the Snowflake access directly, and we'll check her staffing and NDA then.",
        "Please ask Chloe to contact us about the Calloway environment; only she can request it.",
        "Only Chloe can ask for client access for herself, so I've left the Snowflake part out.",
        "For the Snowflake access we need the request from Chloe personally.",
        "She'll need to ask for the Calloway access on her own; the starter kit doesn't cover it.",
        "Chloe should raise the Snowflake request with us whenever she's ready.",
        "Client environments are requested by the employee, so Chloe has to ask for it; a manager can't.",
        "Could you get Chloe to get in touch? She can request the Snowflake viewer role then.",
        "Everything in the kit is set up. Chloe must submit the Calloway request, and it'll be checked then.",
    ),
    rubrics.OFFBOARDING_ASKED_BY: (
        "Offboarding can only be raised by Sofia's line manager, Omar, or by someone in People.",
        "Only the leaver's line manager or the People team may ask us to offboard someone.",
        "With Omar off sick, please get the People team to raise it and we'll act straight away.",
        "I need the request from her line manager or from HR, not from a skip-level director.",
        "The People department can request it while Omar is away; they're the right people to ask.",
        "Our policy lets only the direct manager or People request an offboarding.",
        "Please ask someone in People to send the request; they're allowed to raise offboardings.",
        "Omar, as her line manager, can ask for this, and so can anyone in People.",
        "This has to come from her line manager or the People team, so I can't act on it myself.",
        "If HR raises it we can switch everything off this afternoon.",
        "A colleague in People can raise it for you today.",
    ),
    rubrics.ROLL_OFF_ASKED_BY: (
        "A roll-off has to be requested by Felix or by Ingrid Larsen, who leads the Calloway engagement.",
        "Only the consultant himself or the lead of the engagement he's leaving can ask for this.",
        "Could you ask Ingrid, as the engagement lead, to send it to us?",
        "Felix can ask us and we'll close it straight away.",
        "The engagement lead, Ingrid Larsen, is the one who can request a roll-off for her team.",
        "This needs to come from Felix or from the engagement's lead.",
        "Line managers can't request roll-offs; the consultant or the engagement lead can.",
        "Please get Ingrid to raise it, since she leads that engagement.",
        "If Felix raises it himself, it goes through today.",
        "Ingrid Larsen may ask for it as the engagement lead.",
        "It's the engagement lead who can ask for a roll-off, so Ingrid can send it through.",
    ),
    rubrics.STARTER_KIT_ASKED_BY: (
        "A starter kit can only be requested by Arjun, his line manager Rory, or the People team.",
        "Arjun can ask us directly today and we'll set it all up.",
        "Please get someone in People to raise it, or Arjun can request it.",
        "Only the joiner, his direct manager or HR can ask for a kit.",
        "Rory, as his line manager, can raise it by email from the client site.",
        "The People team is able to request it while Rory is away.",
        "If Arjun contacts us this morning, we'll sort everything out.",
        "It has to come from Arjun, Rory or the People team.",
        "Ask Arjun to get in touch with us; he's allowed to ask for his own kit.",
        "The joiner, his line manager and People are the ones who may ask.",
        "Arjun can raise it himself from his new laptop login.",
    ),
    rubrics.ALDER_FROM_9_FEBRUARY: (
        "Your Alder assignment starts on Monday 9 February, so please come back to us then.",
        "Ask again from February 9 and it should go through.",
        "From 9 Feb you'll be staffed on Alder, and we can look at it again.",
        "The assignment begins 2026-02-09; raise it again on that day.",
        "Please get in touch on the 9th of February.",
        "Once you start on 9th February, ask us again.",
        "You can ask for it again from next Monday, 9 February 2026.",
        "Client access begins with your assignment on Feb 9, 2026.",
        "Try again on Monday the 9th and we'll set it up.",
        "From February 9th onwards you can request it.",
        "You're only staffed from the 9th, so please ask again from the 9th.",
    ),
}

WRONG: dict[Rubric, tuple[str, ...]] = {
    rubrics.FELIX_ASKS_FOR_HIS_LICENCE: (
        "Done! I've assigned Felix a Tableau Creator seat.",
        "I'm sorry, I can't help with this request.",
        "Tableau Creator needs approval from IT security, so I've sent it to Ruth Adeyemi.",
        "As his manager you'll need to approve it in the portal first, then I can assign the seat.",
        "Felix isn't eligible for Tableau Creator at his grade, so I can't set it up.",
        "All the Tableau seats are taken, so I've put Felix on the waitlist.",
        "Please ask his engagement lead to raise the request instead.",
        "I've passed this on to the licensing team; they'll be in touch with you.",
        "No problem: as his manager your approval is enough. It'll be ready this afternoon.",
        "Please have the People team raise it on his behalf.",
        "Felix will need to wait a few days for a seat to free up, but I've reserved one.",
    ),
    rubrics.CHLOE_ASKS_FOR_HER_ACCESS: (
        "All done: the kit is complete and Chloe now has viewer access to Calloway Snowflake.",
        "The kit is done. I can't do the Snowflake access, sorry.",
        "Snowflake access needs the engagement lead's approval, so I've sent it to Ingrid Larsen.",
        "As her manager you can approve client access; please confirm and I'll grant it.",
        "Calloway requires a background check, so the Snowflake access is on hold for screening.",
        "Chloe's NDA isn't signed yet, so the Snowflake access will have to wait.",
        "The kit is complete; client access will follow automatically next week.",
        "I've asked the People team to add the Snowflake access for her.",
        "Analysts can't have Snowflake access, so I've left it out.",
        "Chloe will need to wait for her laptop before she can use Snowflake; I'll grant it then.",
        "Please ask IT security to raise the Calloway access.",
    ),
    rubrics.OFFBOARDING_ASKED_BY: (
        "I've revoked Sofia's access and released her licences as you asked.",
        "Sorry, I can't help with that.",
        "You'll need IT security to approve the offboarding first.",
        "Only the managing partner can request an offboarding.",
        "Please ask the engagement lead to raise it.",
        "As you're senior to Omar, that's fine: everything is switched off.",
        "I'll pass this to the offboarding team and they'll take care of it.",
        "Offboarding requests must come from a partner.",
        "I can't do it today; please try again tomorrow.",
        "Sofia has to ask for this herself.",
        "Her access will lapse on its own in a few weeks, so nothing is needed.",
    ),
    rubrics.ROLL_OFF_ASKED_BY: (
        "I've closed Felix's Calloway access.",
        "Sorry, I'm unable to do that.",
        "His offboarding will need to be raised by his line manager.",
        "You'll need IT security's approval for a roll-off.",
        "As his line manager you can ask, so that's done now.",
        "Roll-offs happen automatically when the assignment ends, so nothing is needed.",
        "Please ask the managing partner to approve it.",
        "I'll close it once his NDA expires.",
        "Roll-offs are requested through the staffing portal, not the service desk.",
        "Please raise it again next week.",
        "I've sent it to the engagement lead for approval and will close the access once she agrees.",
    ),
    rubrics.STARTER_KIT_ASKED_BY: (
        "Of course: Arjun's starter kit is all set up.",
        "I'm sorry, I can't help.",
        "Starter kits need IT security approval, so I've sent it to Ruth Adeyemi.",
        "As a director you can approve it, so it's done.",
        "Please ask the engagement lead to request it.",
        "Arjun's start date is in the future, so we'll hold the kit until then.",
        "Only the managing partner can request kits.",
        "I'll set it up tomorrow once the system is updated.",
        "New joiners get their kit automatically after a week.",
        "Please raise it again once Arjun has signed his NDA.",
        "Rory will need to approve it in writing before I can do anything for you.",
    ),
    rubrics.ALDER_FROM_9_FEBRUARY: (
        "Your assignment starts on 19 February, so ask again then.",
        "Please ask again on 29 February.",
        "Ask again from 2 March.",
        "Please try again next week.",
        "I can't give you access; you're not staffed on Alder.",
        "Done: you have viewer access until 3 May 2026.",
        "Ask again once your NDA is signed.",
        "You'll be able to ask from 1 February.",
        "Please come back on February 19th.",
        "Ask again on 9 March 2026.",
        "Come back from the 16th of February, when the assignment starts.",
    ),
}


def _verdict(rubric: Rubric, reply: str) -> str:
    messages = [{"role": "assistant", "content": reply}]
    return asyncio.run(PhraseJudge().ask(rubric.question, messages, rubric.phrases)).answer


def _ids(rubric: Rubric) -> str:
    return rubric.task


def test_every_rubric_has_its_replies():
    """Each question is tried on at least ten replies of each kind, none twice."""
    for rubric in RUBRICS:
        assert len(set(CORRECT[rubric])) >= MINIMUM, rubric.question
        assert len(set(WRONG[rubric])) >= MINIMUM, rubric.question
    assert set(CORRECT) == set(WRONG) == set(RUBRICS)
    assert len({r.task for r in RUBRICS}) == len(RUBRICS)


def test_the_families_group_the_questions():
    """The remaining questions fall into three families; each family's phrase lists are tested below."""
    families = Counter(r.family for r in RUBRICS)
    assert families == {rubrics.ASKS_IN_PERSON: 2, rubrics.WHO_MAY_ASK: 3, rubrics.ASK_AGAIN_FROM: 1}


def test_the_tasks_ask_these_questions_and_no_others():
    """Every `run.rubric` of a consulting task asks one of these rubrics, with its phrases, in the task it names."""
    asked: dict[str, list[str]] = {}
    for module in sorted(TASKS.glob("test_*.py")):
        for node in ast.parse(module.read_text()).body:
            if not (isinstance(node, ast.FunctionDef) and node.name.startswith("test_case_")):
                continue
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and getattr(call.func, "attr", None) == "rubric":
                    question = call.args[0]
                    assert isinstance(question, ast.Attribute), node.name
                    assert isinstance(question.value, ast.Name), node.name
                    phrases = next(k.value for k in call.keywords if k.arg == "phrases")
                    assert ast.unparse(phrases) == f"{question.value.id}.phrases", node.name
                    asked.setdefault(node.name.removeprefix("test_case_"), []).append(question.value.id)
    expected = {r.task: [name] for name, r in vars(rubrics).items() if isinstance(r, Rubric)}
    assert asked == expected


@pytest.mark.parametrize("rubric", RUBRICS, ids=_ids)
def test_correct_replies_are_a_yes(rubric: Rubric):
    missed = [reply for reply in CORRECT[rubric] if _verdict(rubric, reply) != "yes"]
    assert not missed, f"{rubric.question}: no phrase found in {missed}"


@pytest.mark.parametrize("rubric", RUBRICS, ids=_ids)
def test_wrong_replies_are_a_no(rubric: Rubric):
    passed = [reply for reply in WRONG[rubric] if _verdict(rubric, reply) != "no"]
    assert not passed, f"{rubric.question}: a wrong reply passes: {passed}"
