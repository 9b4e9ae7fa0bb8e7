"""Models as user and judge: the simulator's faults are never the agent's, the judge reads what the customer saw.

Against the local scripted OpenAI-compatible server, which records every request's body.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from conftest import REFUND_TASK, read_records

from pytest_thinkingbox.roles.judge import read_verdict
from pytest_thinkingbox.serve.model_server import Fault, Script, ScriptedModelServer

OPENING = "Please refund the 40 dollars you owe me."
#: The agent refunds, solves the ticket, then tells the customer and waits for an answer.
ASKS_THE_USER = Script(
    [
        {"tool": "get_account", "arguments": {"account_id": "A-1"}},
        {"tool": "issue_refund", "arguments": {"account_id": "A-1", "amount_cents": 4000}},
        {"tool": "update_ticket", "arguments": {"ticket_id": "T-9", "status": "solved", "note": "refunded"}},
    ],
    reply="Your 40 dollars are refunded. Anything else?",
    end=False,
)
#: The agent only greets: it has done nothing yet when the user first answers.
GREETS = Script([], reply="Hello! How can I help you today?", end=False)
RUBRIC_TASK = REFUND_TASK.replace(
    '    assert run.db.get(Ticket, "T-9").status == "solved"',
    '    assert run.db.get(Ticket, "T-9").status == "solved"\n'
    '    run.rubric("Did the agent say the 40 dollars are refunded?", phrases=["40 dollars are refunded"])',
)


def config(where: pytest.Pytester, base_url: str, **roles: dict) -> None:
    endpoint = {"base_url": base_url, "api_key_env": None, "timeout_s": 5, "max_retries": 2}
    (where.path / "models.yaml").write_text(json.dumps({"endpoint": endpoint, **roles}))


def requests_of(server: ScriptedModelServer, role: str) -> list[dict]:
    assert server.bodies is not None
    marks = {"user": "You are playing a customer", "judge": "You grade a conversation"}
    return [
        b
        for b in server.bodies
        if not b.get("tools")
        and marks[role] in next((m["content"] for m in b["messages"] if m["role"] == "system"), "")
    ]


@pytest.fixture
def served(toy: pytest.Pytester) -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer({OPENING: ASKS_THE_USER}, record=True) as server:
        toy.makepyfile(test_tasks=REFUND_TASK)
        config(toy, server.base_url, agent={"model": "a"}, user={"model": "u"})
        yield server


def test_the_user_models_dialogue_starts_with_a_user_turn(toy, served):
    toy.runpytest("--tb-config", "models.yaml", "--tb-results", "r.jsonl").assert_outcomes(passed=1)
    [request] = requests_of(served, "user")
    roles = [m["role"] for m in request["messages"]]
    assert roles == ["system", "user"]  # the opening lives in the system prompt; the agent's message comes first
    assert OPENING in request["messages"][0]["content"]
    assert request["messages"][1]["content"] == "Your 40 dollars are refunded. Anything else?"


@pytest.mark.parametrize("blank", ["", "   "])
def test_an_empty_user_reply_is_asked_again_and_never_the_agents_failure(toy, served, blank):
    served.faults.extend([Fault(text=blank, role="user")] * 2)  # then the user answers, thanks and stops
    toy.runpytest("--tb-config", "models.yaml", "--tb-results", "r.jsonl").assert_outcomes(passed=1)
    [record] = read_records([toy.path / "r.jsonl"])
    assert record["usage"]["user"]["retries"] == 2
    assert record["usage"]["user"]["calls"] == 3
    assert all("STOP" not in str(m.get("content")) for m in record["transcript"])


def test_a_user_that_only_answers_empty_is_a_user_stage_system_error(toy, served):
    served.faults.extend([Fault(text="", role="user")] * 3)
    toy.runpytest("--tb-config", "models.yaml", "--tb-results", "r.jsonl").assert_outcomes(errors=1)
    [record] = read_records([toy.path / "r.jsonl"])
    assert record["outcome"] == "error"
    assert record["error"]["stage"] == "user"
    assert "did not give a usable reply after 3 tries" in record["error"]["message"]


def test_a_stop_before_the_agent_did_anything_is_asked_about_once(toy):
    with ScriptedModelServer({OPENING: GREETS}, record=True) as server:
        toy.makepyfile(test_tasks=REFUND_TASK)
        config(toy, server.base_url, agent={"model": "a"}, user={"model": "u"})
        server.faults.append(Fault(text="### STOP ###", role="user"))  # a variant, on the greeting
        toy.runpytest("--tb-config", "models.yaml", "--tb-results", "r.jsonl")
        asked = requests_of(server, "user")
    assert len(asked) == 2  # asked again with a note, which the agent never sees
    assert "note from the simulation" in asked[1]["messages"][-1]["content"]
    [record] = read_records([toy.path / "r.jsonl"])
    said = [m["content"] for m in record["transcript"] if m["role"] == "user"]
    assert "note from the simulation" not in " ".join(said)
    assert "STOP" not in " ".join(said)
    # the second answer stopped too: it stands (an agent that only greets did not do the task)
    assert record["outcome"] == "failed"
    assert record["end_reason"] == "user_end"


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ('{"reason": "it said so", "answer": "yes"}', "yes"),
        ('```json\n{"reason": "no amount given", "answer": "no"}\n```', "no"),
        ("**Yes**", "yes"),
        ("Answer: yes", "yes"),
        ('{"answer": true}', "yes"),
        ('{"answer": false, "reason": "x"}', "no"),
        ("The answer is no.", "no"),
        ("**Verdict:** No", "no"),
        ("YES. The agent gave the amount.", "yes"),
        ("The agent named the amount and the date. Final answer: **yes**", "yes"),
        ("no", "no"),
    ],
)
def test_the_judges_answer_is_read_in_the_usual_forms(text, answer):
    verdict = read_verdict("q", text)
    assert verdict is not None
    assert verdict.answer == answer


@pytest.mark.parametrize("text", ["maybe", "I cannot tell.", "{}", ""])
def test_an_answer_that_is_neither_yes_nor_no_is_not_read_as_one(text):
    assert read_verdict("q", text) is None


def test_the_judge_sees_what_the_customer_saw_with_the_reference_and_answers_at_temperature_0(toy):
    with ScriptedModelServer({OPENING: ASKS_THE_USER}, record=True) as server:
        toy.makepyfile(test_tasks=RUBRIC_TASK.replace("golden=[", 'reply="Your 40 dollars are refunded.", golden=['))
        config(toy, server.base_url, agent={"model": "a"}, judge={"model": "j"})
        toy.runpytest("--tb-config", "models.yaml", "--tb-results", "r.jsonl").assert_outcomes(passed=1)
        [request] = requests_of(server, "judge")
    prompt = request["messages"][-1]["content"]
    assert "Agent: Your 40 dollars are refunded. Anything else?" in prompt
    assert "issue_refund" not in prompt
    assert "get_account" not in prompt
    assert "T-9" not in prompt
    assert "Reference reply (what a correct agent told this customer):\nYour 40 dollars are refunded." in prompt
    assert "Accepted wordings of the fact asked about: '40 dollars are refunded'" in prompt
    assert request["temperature"] == 0.0


def test_an_unreadable_judge_answer_is_asked_again_with_feedback_then_is_a_judge_error(toy):
    with ScriptedModelServer({OPENING: ASKS_THE_USER}, record=True) as server:
        toy.makepyfile(test_tasks=RUBRIC_TASK)
        config(toy, server.base_url, agent={"model": "a"}, judge={"model": "j"})
        server.faults.extend([Fault(text="hmm", role="judge")] * 3)
        toy.runpytest("--tb-config", "models.yaml", "--tb-results", "r.jsonl").assert_outcomes(errors=1)
        asked = requests_of(server, "judge")
    assert len(asked) == 3
    assert "could not be read" in asked[1]["messages"][-1]["content"]
    [record] = read_records([toy.path / "r.jsonl"])
    assert record["error"]["stage"] == "judge"


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        ("Your 40 dollars are refunded. Anything else?", "yes"),  # the golden reply
        ("I have refunded you. Anything else?", "no"),  # no amount: wrong in other words
    ],
)
def test_the_model_judge_and_the_phrase_judge_agree(toy, said, answer):
    script = Script(ASKS_THE_USER.calls, reply=said, end=False)
    verdicts = {}
    for judge in ("phrases", "model"):
        with ScriptedModelServer({OPENING: script}) as server:
            toy.makepyfile(test_tasks=RUBRIC_TASK)
            roles = {"agent": {"model": "a"}, **({"judge": {"model": "j"}} if judge == "model" else {})}
            config(toy, server.base_url, **roles)
            toy.runpytest("--tb-config", "models.yaml", "--tb-results", f"{judge}.jsonl")
        [record] = read_records([toy.path / f"{judge}.jsonl"])
        verdicts[judge] = record["rubric"][0]["answer"]
    assert verdicts == {"phrases": answer, "model": answer}


def test_a_model_agent_graded_by_an_offline_user_and_judge_is_told_so_in_one_line(toy, served):
    config(toy, served.base_url, agent={"model": "a"})
    result = toy.runpytest("--tb-config", "models.yaml", "--tb-results", "r.jsonl")
    result.stdout.fnmatch_lines(
        ["note: the agent is openai:a, but the user is scripted (offline) and the judge is phrases (offline); *"]
    )
    assert main_report_lines(toy.path / "r.jsonl").count("note: the agent is openai:a") == 1


def main_report_lines(path) -> str:
    import contextlib
    import io

    from pytest_thinkingbox.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["report", str(path)])
    return out.getvalue()


def test_runs_that_differ_only_in_the_judges_temperature_have_other_fingerprints(toy, served):
    fingerprints = []
    for temperature in (0.0, 0.7):
        config(toy, served.base_url, agent={"model": "a"}, judge={"model": "j", "temperature": temperature})
        toy.runpytest("--tb-config", "models.yaml", "--tb-results", f"r{temperature}.jsonl")
        first = (toy.path / f"r{temperature}.jsonl").read_text().splitlines()[0]
        manifest = json.loads(first)["manifest"]
        assert manifest["prompts"] == {"agent": "agent-1", "user": "scripted-2", "judge": "judge-2"}
        fingerprints.append(manifest["fingerprint"])
    assert fingerprints[0] != fingerprints[1]
