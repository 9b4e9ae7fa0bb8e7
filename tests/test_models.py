"""Real model roles through the real `openai` client, against a local scripted OpenAI-compatible server.

The server (pytest_thinkingbox.serve.model_server) listens on the loopback interface
and replays scripted replies; faults (429, 500, slow replies, malformed
arguments) are injected one request at a time.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REFUND_TASK, read_records

from pytest_thinkingbox.roles.config import ModelConfig
from pytest_thinkingbox.roles.endpoint import Endpoint, Usage
from pytest_thinkingbox.serve.model_server import Fault, Script, ScriptedModelServer

ROOT = Path(__file__).parent.parent
OPENING = "Please refund the 40 dollars you owe me."
REFUND_SCRIPT = Script(
    [
        {"tool": "get_account", "arguments": {"account_id": "A-1"}},
        {"tool": "issue_refund", "arguments": {"account_id": "A-1", "amount_cents": 4000}},
        {"tool": "update_ticket", "arguments": {"ticket_id": "T-9", "status": "solved", "note": "refunded"}},
    ],
    reply="Your 40 dollars are refunded and your ticket is solved.",
)


@pytest.fixture
def model() -> Iterator[ScriptedModelServer]:
    """A scripted model that solves the toy refund task."""
    with ScriptedModelServer({OPENING: REFUND_SCRIPT}) as server:
        yield server


@pytest.fixture
def models(toy: pytest.Pytester, model: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The toy project with the refund task and a model configuration pointing at the scripted server."""
    monkeypatch.setenv("OPENAI_API_KEY", "local-test-key")
    toy.makepyfile(test_tasks=REFUND_TASK)
    write_config(toy, model.base_url)
    return toy


def write_config(where: pytest.Pytester, base_url: str, api: str = "chat", **endpoint: object) -> None:
    shared = {"base_url": base_url, "api_key_env": None, "timeout_s": 5, "max_retries": 2, **endpoint}
    config = {"endpoint": shared, "agent": {"model": "scripted", "api": api}, "judge": {"model": "scripted"}}
    (where.path / "models.yaml").write_text(json.dumps(config))  # JSON is YAML


RETAIL_TASK = ["domains/retail", "-k", "RT001_003", "-p", "no:randomly", "-p", "no:cacheprovider"]


@pytest.fixture(scope="module")
def retail_golden(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, Path]:
    """A golden run of RT001_003: its exit code and results file, the same for both APIs, so run once."""
    golden = tmp_path_factory.mktemp("retail") / "golden.jsonl"
    done = subprocess.run([sys.executable, "-m", "pytest", *RETAIL_TASK, "--tb-results", str(golden)], cwd=ROOT)
    return done.returncode, golden


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_a_scripted_golden_model_passes_a_retail_task_through_the_agent_loop(retail_golden, tmp_path, api):
    returncode, golden = retail_golden
    assert returncode == 0
    from pytest_thinkingbox.serve.model_server import scripts_from_results

    scripts = scripts_from_results(golden)
    [script] = scripts.values()
    assert len(script.calls) >= 4
    results = tmp_path / "model.jsonl"
    with ScriptedModelServer(scripts) as server:
        config = tmp_path / "models.yaml"
        config.write_text(
            f"endpoint: {{base_url: '{server.base_url}', api_key_env: null}}\nagent: {{model: m, api: {api}}}\n"
        )
        args = [*RETAIL_TASK, "--tb-config", str(config), "--tb-repeat", "2", "--tb-results", str(results)]
        done = subprocess.run([sys.executable, "-m", "pytest", *args], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:]
    records = read_records([results])
    assert [r["outcome"] for r in records] == ["passed", "passed"]
    for r in records:
        assert r["agent"] == "openai:m"
        assert r["end_reason"] == "agent_end"
        usage = r["usage"]["agent"]
        assert usage["calls"] == len(script.calls) + 1  # one turn per call, then the closing turn
        assert usage["input_tokens"] > usage["cached_tokens"] > 0
        assert usage["output_tokens"] > 0
        assert usage["retries"] == 0
        assert usage["latency_s"] > 0
        assert usage["model"] == "m"
        assert r["tool_calls"] == len(script.calls)
        assert r["tool_errors"] == 0


def test_malformed_arguments_come_back_to_the_model_as_error_results(models, model):
    model.faults.append(Fault(malformed_arguments=True))
    result = models.runpytest("--tb-config", "models.yaml", "--tb-results", "r.jsonl")
    result.assert_outcomes(passed=1)
    [record] = read_records([models.path / "r.jsonl"])
    first, answer = record["transcript"][1], record["transcript"][2]
    assert first["tool_calls"][0]["arguments"] == '{"order_id": '  # what the model wrote, kept as text
    assert answer["error"] == "INVALID_ARGUMENT"
    assert "not valid JSON" in json.loads(answer["content"])["error"]["message"]
    assert record["tool_errors"] == 1
    assert record["tool_calls"] == 4


def test_parallel_tool_calls_in_one_turn_run_in_order_and_are_all_answered(models, model):
    model.calls_per_turn = 3
    models.runpytest("--tb-config", "models.yaml", "--tb-results", "r.jsonl").assert_outcomes(passed=1)
    [record] = read_records([models.path / "r.jsonl"])
    turn = record["transcript"][1]
    assert [c["tool"] for c in turn["tool_calls"]] == ["get_account", "issue_refund", "update_ticket"]
    answers = record["transcript"][2:5]
    assert [a["call_id"] for a in answers] == [c["id"] for c in turn["tool_calls"]]
    assert record["usage"]["agent"]["calls"] == 2


@pytest.mark.parametrize(
    "fault",
    [Fault(status=429, headers={"retry-after": "0.2"}), Fault(garbage=True)],
    ids=["rate-limit", "malformed-response"],
)
def test_a_retried_failure_then_success_is_a_pass_with_the_retry_counted(models, model, fault):
    model.faults.append(fault)
    started = time.perf_counter()
    result = models.runpytest("--tb-config", "models.yaml", "--tb-results", "r.jsonl")
    result.assert_outcomes(passed=1)
    [record] = read_records([models.path / "r.jsonl"])
    assert record["usage"]["agent"]["retries"] == 1
    assert record["usage"]["agent"]["calls"] == 4
    assert model.requests.count("/v1/chat/completions") == 5
    if fault.headers:
        assert time.perf_counter() - started >= 0.2  # the server's retry-after was honoured


def test_a_failing_endpoint_is_a_system_error_in_the_sidecar_and_reruns_alone(models, model):
    faults, cause = [Fault(status=500)] * 3, "InternalServerError"
    write_config(models, model.base_url, timeout_s=0.5)
    model.faults.extend(faults)
    options = ["--tb-config", "models.yaml", "--tb-repeat", "2", "-p", "no:randomly"]
    result = models.runpytest(*options, "--tb-results", "r.jsonl", "--tb-errors", "errors.jsonl")
    result.assert_outcomes(errors=1, passed=1)  # an error, not a failure
    result.stdout.fnmatch_lines(["agent endpoint error: agent model scripted at http*"])  # the message, no traceback
    [error] = read_records([models.path / "errors.jsonl"])
    assert error["attempt"] == 1
    assert error["outcome"] == "error"
    assert error["signature"] is None
    assert error["error"]["stage"] == "agent"
    assert error["error"]["type"] == cause
    assert cause in error["error"]["message"]
    assert "after 2 retries" in error["error"]["message"]
    assert error["usage"]["agent"]["retries"] == 2
    assert error["transcript"][0]["content"] == OPENING

    rerun = models.runpytest(*options, "--tb-rerun-errors", "errors.jsonl", "--tb-results", "r.jsonl")
    rerun.assert_outcomes(passed=1)
    rerun.stdout.fnmatch_lines(["*1 deselected*"])
    records = read_records([models.path / "r.jsonl"])
    assert [(r["attempt"], r["outcome"]) for r in records] == [(1, "error"), (2, "passed"), (1, "passed")]
    assert len({r["run"] for r in records}) == 1
    from pytest_thinkingbox.campaign.records import load
    from pytest_thinkingbox.campaign.report import build_report

    [run] = build_report(load([models.path / "r.jsonl"]))["runs"]
    assert run["aggregate"]["overall"]["pass@1"] == 1.0
    assert run["complete"]


def test_re_running_errors_needs_a_file_for_the_new_records(models):
    models.runpytest("--tb-results", "r.jsonl").assert_outcomes(passed=1)
    result = models.runpytest("--tb-rerun-errors", "r.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tb-rerun-errors r.jsonl: say where the new records go; --tb-results r.jsonl*"])


def test_a_time_limit_reached_while_the_endpoint_fails_is_a_system_error(models, model):
    model.faults.extend([Fault(status=503, headers={"retry-after": "2"})] * 2)
    result = models.runpytest("--tb-config", "models.yaml", "--tb-time-limit", "1", "--tb-results", "r.jsonl")
    result.assert_outcomes(errors=1)
    [record] = read_records([models.path / "r.jsonl"])
    assert record["error"]["stage"] == "agent"
    assert "time limit ran out while the agent endpoint" in record["error"]["message"]


def test_an_ini_file_can_name_the_model(models, model, monkeypatch):
    models.makeini("[pytest]\ntb_agent = openai:scripted\n")
    monkeypatch.setenv("OPENAI_API_KEY", "local-test-key")
    models.runpytest("--tb-base-url", model.base_url, "--tb-results", "r.jsonl").assert_outcomes(passed=1)
    [record] = read_records([models.path / "r.jsonl"])
    assert record["agent"] == "openai:scripted"
    assert record["usage"]["agent"]["calls"] == 4


def test_limits_end_the_episode_with_a_recorded_reason_not_a_system_error(models, model):
    model.latency_s = 0.6
    result = models.runpytest("--tb-config", "models.yaml", "--tb-time-limit", "1", "--tb-results", "r.jsonl")
    result.assert_outcomes(failed=1)
    [record] = read_records([models.path / "r.jsonl"])
    assert record["end_reason"] == "time_limit"
    assert record["signature"] == "limit_reached"


def test_resume_after_a_killed_run_loses_and_duplicates_nothing(models, model):
    model.latency_s = 0.03
    command = [sys.executable, "-m", "pytest", "--tb-config", "models.yaml", "--tb-repeat", "30", "-p", "no:randomly"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    campaign = subprocess.Popen([*command, "--tb-results", "r.jsonl"], cwd=models.path, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    results = models.path / "r.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not results.exists() or results.read_text().count("\n") < 6):
        time.sleep(0.05)
    campaign.send_signal(signal.SIGKILL)
    campaign.wait()
    before = read_records([results], drop_cut_line=True)  # the complete lines of what the kill left
    assert 5 <= len(before) < 30, "the campaign should have been stopped part-way"
    with results.open("a") as f:
        f.write('{"task": "test_case_TY001_001", "attem')  # a line cut off as a kill can leave it

    done = subprocess.run(
        [*command, "--tb-resume", "r.jsonl"], cwd=models.path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-2000:]
    records = read_records([results])
    assert sorted(r["attempt"] for r in records) == list(range(1, 31))
    assert records[: len(before)] == before
    assert len({r["run"] for r in records}) == 1


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("agent: {model: m, colour: red}", "models.yaml: unknown field agent.colour; fields are *"),
        ("agent: {api: chat}", "models.yaml: agent.model is missing*"),
        ("agents: {model: m}", "models.yaml: unknown section 'agents'*"),
        ("agent: {model: m, api: completions}", "models.yaml: agent.api is 'completions'; choose chat or responses"),
        ("agent: {model: m, api_key_env: TB_TEST_UNSET_KEY}", "*TB_TEST_UNSET_KEY holding the API key is not set"),
        (
            "agent: {model: m, base_url: 'http://127.0.0.1:9/v1', api_key_env: null}",
            "*cannot reach http://127.0.0.1:9/v1*",
        ),
    ],
    ids=["unknown-field", "no-model", "unknown-section", "bad-api", "missing-key", "unreachable"],
)
def test_configuration_mistakes_are_usage_errors_before_any_task_runs(toy, config, message):
    toy.makepyfile(test_tasks=REFUND_TASK)
    (toy.path / "models.yaml").write_text(config)
    result = toy.runpytest("--tb-config", "models.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}"])


def test_the_shortcut_needs_the_key_and_names_the_model(toy, model, monkeypatch):
    toy.makepyfile(test_tasks=REFUND_TASK)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = toy.runpytest("--tb-agent", "openai:scripted", "--tb-base-url", model.base_url)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*agent: the environment variable OPENAI_API_KEY holding the API key is not set"])
    monkeypatch.setenv("OPENAI_API_KEY", "local-test-key")
    result = toy.runpytest("--tb-agent", "openai:scripted", "--tb-base-url", model.base_url, "--tb-results", "r.jsonl")
    result.assert_outcomes(passed=1)
    [record] = read_records([toy.path / "r.jsonl"])
    assert record["agent"] == "openai:scripted"
    assert record["usage"]["agent"]["model"] == "scripted"


RUBRIC_TASK = REFUND_TASK.replace(
    '    assert run.db.get(Ticket, "T-9").status == "solved"',
    '    assert run.db.get(Ticket, "T-9").status == "solved"\n'
    '    run.rubric("Did the agent say the money was refunded?", phrases=["refunded"])',
).replace('note="refunded"),\n        ],', 'note="refunded"),\n        ],\n        reply="Done: 40 dollars refunded.",')


def test_rubric_questions_are_recorded_and_a_no_is_the_agents_failure(toy, model, monkeypatch):
    toy.makepyfile(test_tasks=RUBRIC_TASK)
    result = toy.runpytest("--tb-repeat", "2", "--tb-results", "golden.jsonl")
    result.assert_outcomes(passed=2)
    [first, _] = read_records([toy.path / "golden.jsonl"])
    assert first["rubric"] == [
        {
            "question": "Did the agent say the money was refunded?",
            "answer": "yes",
            "reason": "the agent said 'refunded'",
            "passed": True,
        }
    ]
    # A model that does the work but never tells the customer: the state is right, the rubric fails.
    model.scripts[OPENING] = Script(REFUND_SCRIPT.calls, reply="Goodbye.")
    monkeypatch.setenv("OPENAI_API_KEY", "local-test-key")
    result = toy.runpytest("--tb-agent", "openai:scripted", "--tb-base-url", model.base_url, "--tb-results", "r.jsonl")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*rubric failed: 'Did the agent say the money was refunded?'*"])
    [record] = read_records([toy.path / "r.jsonl"])
    assert record["rubric"][0]["answer"] == "no"
    assert record["signature"] == "rubric_failed"


def test_the_llm_judge_and_user_are_served_by_the_endpoint_with_their_usage(toy, model, monkeypatch):
    toy.makepyfile(test_tasks=RUBRIC_TASK)
    model.scripts[OPENING] = Script(REFUND_SCRIPT.calls, reply="Refunded. Anything else?", end=False)
    monkeypatch.setenv("OPENAI_API_KEY", "local-test-key")
    roles = [
        "--tb-agent",
        "openai:a",
        "--tb-user",
        "openai:u",
        "--tb-judge",
        "openai:j",
        "--tb-base-url",
        model.base_url,
    ]
    result = toy.runpytest(*roles, "--tb-results", "r.jsonl")
    result.assert_outcomes(passed=1)
    [record] = read_records([toy.path / "r.jsonl"])
    assert record["end_reason"] == "user_end"
    assert record["transcript"][-1] == {"role": "user", "content": "Thank you, that's all."}  # the stop marker cut
    assert record["rubric"][0] | {"reason": ""} == {
        "question": "Did the agent say the money was refunded?",
        "answer": "yes",
        "reason": "",
        "passed": True,
    }
    assert {role: u["calls"] for role, u in record["usage"].items()} == {"agent": 4, "user": 1, "judge": 1}
    assert (record["agent"], record["user"], record["judge"]) == ("openai:a", "openai:u", "openai:j")


def test_a_dead_endpoint_ends_a_campaign_quickly_in_error_records(models, model):
    model.faults.extend([Fault(status=503)] * 2000)  # the endpoint goes down after the start-up check
    write_config(models, model.base_url, max_retries=4)
    started = time.monotonic()
    result = models.runpytest_subprocess(
        "--tb-config", "models.yaml", "--tb-repeat", "490", "-n", "2", "--tb-results", "r.jsonl", "-p", "no:randomly"
    )
    took = time.monotonic() - started
    records = read_records([models.path / "r.jsonl"])
    assert len(records) == 490
    assert {r["outcome"] for r in records} == {"error"}
    kinds = {r["error"]["type"] for r in records}
    assert kinds == {"InternalServerError", "BreakerOpen"}  # each worker tries it, then the breaker holds
    down = [r for r in records if r["error"]["type"] == "BreakerOpen"]
    assert len(down) >= 480
    assert all("scripted at http://127.0.0.1" in r["error"]["message"] for r in down)
    assert took < 60, f"a campaign against a dead endpoint took {took:.0f} s"
    assert result.stdout.str().count("The agent endpoint was down") == 1


def test_a_hung_endpoint_ends_a_campaign_of_a_hundred_attempts_within_a_minute_in_error_records(models, model):
    model.faults.extend([Fault(delay_s=3600)] * 2000)  # accepts every request and never answers it
    config = {"base_url": model.base_url, "api_key_env": None}  # the default timeouts and breaker
    (models.path / "models.yaml").write_text(json.dumps({"endpoint": config, "agent": {"model": "scripted"}}))
    started = time.monotonic()
    result = models.runpytest_subprocess(
        "--tb-config", "models.yaml", "--tb-repeat", "120", "-n", "2", "--tb-results", "r.jsonl", "-p", "no:randomly"
    )
    took = time.monotonic() - started
    records = read_records([models.path / "r.jsonl"])
    assert len(records) == 120
    assert {r["outcome"] for r in records} == {"error"}
    assert {r["error"]["type"] for r in records} == {"EndpointHung", "BreakerOpen"}
    hung = next(r for r in records if r["error"]["type"] == "EndpointHung")
    assert "no answer began within first_byte_s = 20 s" in hung["error"]["message"]
    assert took < 60, f"a campaign against a hung endpoint took {took:.0f} s"
    assert result.stdout.str().count("The agent endpoint was down") == 1


def test_an_endpoint_that_never_answers_is_a_system_error_whatever_the_time_limit(models, model):
    model.faults.extend([Fault(delay_s=3.0)] * 3)  # no answer within the request's timeout
    write_config(models, model.base_url, timeout_s=1)
    result = models.runpytest("--tb-config", "models.yaml", "--tb-time-limit", "1", "--tb-results", "r.jsonl")
    result.assert_outcomes(errors=1)
    [record] = read_records([models.path / "r.jsonl"])
    message = record["error"]["message"]
    assert (record["error"]["stage"], record["error"]["type"]) == ("agent", "EndpointHung")
    assert "agent model scripted at http://127.0.0.1" in message
    assert "within timeout_s = 1 s" in message


def test_a_request_that_hangs_is_not_retried_and_the_next_attempt_runs_after_the_cool_down(models, model):
    model.faults.append(Fault(delay_s=3.0))
    write_config(models, model.base_url, first_byte_s=0.5, breaker_cooldown_s=0)
    result = models.runpytest("--tb-config", "models.yaml", "--tb-repeat", "2", "--tb-results", "r.jsonl")
    result.assert_outcomes(errors=1, passed=1)
    hung, passed = read_records([models.path / "r.jsonl"])
    assert hung["error"]["type"] == "EndpointHung"
    assert hung["usage"]["agent"]["retries"] == 0
    assert "no answer began within first_byte_s = 0.5 s" in hung["error"]["message"]
    assert passed["outcome"] == "passed"


def test_a_body_that_is_not_json_is_retried_and_named(models, model):
    model.faults.extend([Fault(not_json=True)] * 3)
    write_config(models, model.base_url, max_retries=2)
    result = models.runpytest("--tb-config", "models.yaml", "--tb-results", "r.jsonl")
    result.assert_outcomes(errors=1)
    [record] = read_records([models.path / "r.jsonl"])
    message = record["error"]["message"]
    assert record["usage"]["agent"]["retries"] == 2
    assert "agent model scripted at http://127.0.0.1" in message
    assert "after 2 retries" in message


def test_a_campaign_keeps_to_the_endpoints_limit(models, model):
    # 60 a minute with a burst of 10: the 12 requests of 3 attempts cannot all be sent within 2 s
    # (about 0.4 s without the limit). The first arrival comes after the first send by the time a new
    # connection takes, up to a few tenths of a second on a loaded machine: hence 1.5 s, not 2.
    write_config(models, model.base_url, requests_per_minute=60)
    models.runpytest("--tb-config", "models.yaml", "--tb-repeat", "3").assert_outcomes(passed=3)
    assert len(model.arrivals) == 12
    assert model.arrivals[-1] - model.arrivals[0] >= 1.5


@pytest.mark.parametrize("value", [0, -5, "fast", True])
def test_a_limit_must_be_a_number_above_zero(models, model, value):
    write_config(models, model.base_url, tokens_per_minute=value)
    result = models.runpytest("--tb-config", "models.yaml")
    assert result.ret != 0
    result.stderr.fnmatch_lines([f"*tokens_per_minute must be a number above 0, got {value!r}*"])


@pytest.mark.parametrize("api", ["chat", "responses"])
@pytest.mark.parametrize("extra", [{"seed": 7, "store": True}, {"tools": []}], ids=["extra-fields", "extra-tools"])
def test_every_request_body_holds_the_prompt_the_conversation_and_the_tools_and_extra_body_wins(api, extra):
    """The prompt and the tools are encoded once per endpoint and spliced into each body; the body the server
    reads is still the plain merge of the request and the config's ``extra_body``."""
    policy = "Refunds over 50 dollars need a manager (Rückerstattung)."
    tools: list[dict[str, Any]] = [
        {
            "type": "function",
            "function": {
                "name": "get_order",
                "description": "An order, by id.",
                "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}},
            },
        }
    ]
    turns = [
        [{"role": "user", "content": "Where is order O-1? Merci."}],
        [{"role": "user", "content": "Where is order O-2?"}, {"role": "assistant", "content": "Looking."}],
    ]
    with ScriptedModelServer() as server:
        config = ModelConfig(
            model="m", base_url=server.base_url, api_key_env=None, api=api, temperature=0.5, extra_body=extra
        )
        endpoint = Endpoint(config, stage="agent")

        async def converse() -> list[dict]:
            bodies = []
            for messages in turns:  # the second request reuses the encoded prompt and tools
                await endpoint.complete(policy, messages, Usage(), tools)
                assert server.last_body is not None
                bodies.append(server.last_body)
            await endpoint.aclose()
            return bodies

        bodies = asyncio.run(converse())
    for messages, body in zip(turns, bodies, strict=True):
        if api == "chat":
            expected = {
                "model": "m",
                "temperature": 0.5,
                "messages": [{"role": "system", "content": policy}, *messages],
            }
            expected["tools"] = tools
        else:
            expected = {"model": "m", "temperature": 0.5, "instructions": policy, "store": False}
            expected["input"] = [{"role": m["role"], "content": m["content"]} for m in messages]
            expected["tools"] = [{"type": "function", "strict": False, **t["function"]} for t in tools]
        assert body == {**expected, **extra}


def test_every_request_in_flight_is_sent_at_once_on_its_own_connection():
    """A worker's episodes share one client: 200 requests in flight (above aiohttp's own default of 100
    connections) all reach the server before the first reply, so none waits for another to finish."""
    with ScriptedModelServer(latency_s=1.0) as server:
        endpoint = Endpoint(ModelConfig(model="m", base_url=server.base_url, api_key_env=None), stage="agent")

        async def burst() -> list[Any]:
            calls = [
                endpoint.complete("Be brief.", [{"role": "user", "content": f"hi {i}"}], Usage()) for i in range(200)
            ]
            replies = await asyncio.gather(*calls)
            await endpoint.aclose()
            return replies

        replies = asyncio.run(burst())
    assert len(replies) == 200
    assert len(server.arrivals) == 200
    # Every request arrived while the first still waited for its reply (measured from the first arrival: on a
    # loaded machine, starting the client and the loop took 2 s before any request left).
    assert max(server.arrivals) - min(server.arrivals) < 1.0


def test_the_scripted_server_waits_out_its_latency_for_every_connection_at_once():
    """64 replies of 0.3 s each take about 0.3 s in all, not 19 s, and again on the same connections."""
    with ScriptedModelServer(latency_s=0.3) as server:
        endpoint = Endpoint(ModelConfig(model="m", base_url=server.base_url, api_key_env=None), stage="agent")

        async def twice() -> float:
            began = time.monotonic()
            for _ in range(2):  # the second round reuses the first round's connections
                calls = [
                    endpoint.complete("Be brief.", [{"role": "user", "content": f"hi {i}"}], Usage()) for i in range(64)
                ]
                await asyncio.gather(*calls)
            await endpoint.aclose()
            return time.monotonic() - began

        took = asyncio.run(twice())
    assert len(server.requests) == 128
    assert took < 2 * 0.3 * 4  # two rounds of 0.3 s, with room for a slow machine


def test_a_request_the_scripted_server_cannot_serve_is_answered_at_once_and_leaves_the_faults_queued():
    """A fault (and the latency) belongs to a completion request the server can read; an unknown path or an
    unreadable body is answered without either, so a test's queued fault reaches the request it was meant for."""
    with ScriptedModelServer(latency_s=30.0) as server:  # a request that waited it out would time the client out
        server.faults.append(Fault(status=503))
        port = int(server.base_url.rsplit(":", 1)[1].split("/")[0])
        client = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        statuses = []
        for path, body in [
            ("/v1/embeddings", b"{}"),
            ("/v1/chat/completions", b"{not json"),
            ("/v1/chat/completions", b'{"messages": [{"content": "no role"}]}'),
        ]:
            client.request("POST", path, body=body)  # one keep-alive connection throughout
            response = client.getresponse()
            response.read()
            statuses.append(response.status)
        client.close()
        assert statuses == [404, 400, 400]
        assert list(server.faults) == [Fault(status=503)]


def test_the_scripted_server_keeps_a_connection_open_until_asked_and_answers_bad_requests_with_an_error():
    with ScriptedModelServer() as server:
        port = int(server.base_url.rsplit(":", 1)[1].split("/")[0])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
            conn.sendall(b"not an http request\r\n\r\n")
            assert conn.recv(4096).startswith(b"HTTP/1.1 400 Bad Request\r\n")
            assert conn.recv(4096) == b""  # and closes the connection
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
            models = b"GET /v1/models HTTP/1.1\r\nHost: x\r\n"
            conn.sendall(models + b"\r\n")
            kept = conn.recv(4096)
            conn.sendall(models + b"Connection: close\r\n\r\n")  # a second request on the same connection
            rest = b"".join(iter(lambda: conn.recv(4096), b""))  # until the server closes it
        assert kept.startswith(b"HTTP/1.1 200 OK\r\n")
        assert rest.startswith(b"HTTP/1.1 200 OK\r\n")
        client = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        requests = [
            ("GET", "/v1/models", None),
            ("POST", "/v1/embeddings", b"{}"),
            ("POST", "/v1/chat/completions", b"{not json"),
            ("POST", "/v1/chat/completions", b'{"messages": [{"content": "no role"}]}'),
        ]
        statuses = []
        for method, path, body in requests:
            client.request(method, path, body=body)  # one keep-alive connection throughout
            response = client.getresponse()
            statuses.append((response.status, json.loads(response.read()).get("error", {}).get("message", "")))
        client.close()
    assert statuses == [
        (200, ""),
        (404, "not found"),
        (400, "the body is not JSON"),
        (400, "unreadable request: KeyError: 'role'"),
    ]
