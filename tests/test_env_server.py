"""The environment server: episodes over HTTP, isolated, graded by the task's checks."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from pytest_thinkingbox.serve.env_http import HttpServer
from pytest_thinkingbox.serve.env_server import EnvServer

DOMAINS = Path(__file__).resolve().parent.parent / "domains"
SERVERS: dict[str, EnvServer] = {}  # the server behind each base URL, to look inside it
TASK = "test_case_RT001_003"  # an exception 8 days old counts as lost: refund 19,899 in full, ticket solved
REFUND = {
    "tool": "issue_refund",
    "arguments": {"order_id": "O-5001", "amount_cents": 19_899, "reason": "lost_parcel", "method": "original"},
}
SOLVE = {"tool": "update_ticket", "arguments": {"ticket_id": "T-7001", "status": "solved", "category": "delivery"}}


@pytest.fixture(scope="module")
def base_url():
    env = EnvServer(DOMAINS, tasks=[TASK, "test_case_RT001_001"])
    http = HttpServer(env, port=0)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{http.server_port}"
    SERVERS[url] = env
    yield url
    http.shutdown()


def _post(base_url: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(base_url + path, data=json.dumps(body).encode(), method="POST")
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())


def _episode(base_url: str, actions: list[dict]) -> tuple[dict, list[dict], dict]:
    start = _post(base_url, "/reset", {"task_id": TASK})
    seen = []
    for action in actions:
        last = _post(base_url, "/step", {"episode_id": start["episode_id"], "action": action})
        seen.append(last)
        if last["done"]:
            break
    return start, seen, last


def test_a_client_replaying_the_right_calls_earns_1_and_one_doing_nothing_0(base_url):
    start, seen, last = _episode(base_url, [{"tool_calls": [REFUND]}, {"tool_calls": [SOLVE]}, {"end": True}])
    assert start["done"] is False
    assert start["reward"] is None
    assert start["observation"]["messages"][0]["role"] == "user"
    assert start["observation"]["policy"]
    assert {t["name"] for t in start["observation"]["tools"]} >= {"issue_refund", "update_ticket", "search_policy"}
    assert json.loads(seen[0]["observation"]["messages"][-1]["content"])["id"] == "RF-0001"
    assert (last["done"], last["reward"]) == (True, 1)
    _, _, idle = _episode(base_url, [{"end": True}])
    assert idle["reward"] == 0
    assert idle["observation"]["info"] == {"reason": "a check failed"}


def test_private_state_never_leaves_the_server(base_url):
    start, seen, _last = _episode(
        base_url, [{"message": "Which would you prefer, a refund or a replacement?"}, {"end": True}]
    )
    everything = json.dumps([start, *seen])
    # the order id and email are the user's private facts (not asked for), 19899 the golden refund amount
    assert "O-5001" not in everything
    assert "@example" not in everything
    assert "19899" not in everything
    reply = seen[0]["observation"]["messages"][-1]
    assert reply["role"] == "user"
    assert "a refund, not a replacement" in reply["content"].lower()


def test_twenty_concurrent_episodes_see_only_their_own_writes(base_url):
    def run(i: int) -> tuple[int, str, int]:
        actions: list[dict] = (
            [{"tool_calls": [REFUND]}, {"tool_calls": [SOLVE]}, {"end": True}]
            if i % 2
            else [{"tool_calls": [SOLVE]}, {"end": True}]
        )
        _, seen, last = _episode(base_url, actions)
        first_result = json.loads(seen[0]["observation"]["messages"][-1]["content"])
        return i, first_result.get("id", ""), last["reward"]

    with ThreadPoolExecutor(max_workers=20) as pool:
        outcomes = list(pool.map(run, range(20)))
    for i, first_id, reward in outcomes:
        if i % 2:  # each refunding episode makes the first and only refund of its own backend
            assert (first_id, reward) == ("RF-0001", 1), i
        else:  # and the others see none of it: their task still misses its refund
            assert reward == 0, i


def test_a_backend_failure_is_a_system_error_with_its_stage_not_a_reward(base_url, monkeypatch):
    from pytest_thinkingbox.core.backends.sqlite import SQLiteBackend

    def broken(self, image):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(SQLiteBackend, "restore", broken)
    start = _post(base_url, "/reset", {"task_id": TASK})
    assert start["done"] is True
    assert start["reward"] is None
    error = {"stage": "backend", "message": "a fresh backend failed: RuntimeError: out of memory"}
    assert start["observation"]["error"] == error


def test_unknown_tasks_and_episodes_are_client_errors(base_url):
    with pytest.raises(urllib.error.HTTPError) as unknown:
        _post(base_url, "/reset", {"task_id": "test_case_XX001_001"})
    assert unknown.value.code == 400
    assert "no task 'test_case_XX001_001'" in unknown.value.read().decode()
    with pytest.raises(urllib.error.HTTPError) as missing:
        _post(base_url, "/step", {"episode_id": "nope", "action": {"end": True}})
    assert missing.value.code == 400
    assert "call /reset first" in missing.value.read().decode()


def _status(base_url: str, path: str, data: bytes) -> tuple[int, str]:
    request = urllib.request.Request(base_url + path, data=data, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (b"[1, 2]", 400, "the request body must be a JSON object"),
        (b"not json", 400, "the body is not JSON: Expecting value"),
        (b'{"x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", 400, "the JSON is nested too deep"),
        (b'{"x": "' + b"a" * 100_000 + b'"}', 400, "a text of 100000 characters is longer than the 65536 allowed"),
        (b'{"action": "end"}', 422, "must be an object like"),
        (b'{"action": {}}', 422, "does nothing: give tool_calls, a message, or end: true"),
        (b'{"action": {"tool_call": [], "end": true}}', 422, "unknown field; an action has tool_calls"),
        (b'{"action": {"tool_calls": [1]}}', 422, 'must be {"tool": NAME'),
        (b'{"action": {"tool_calls": "issue_refund"}}', 422, "must be a list of {tool, arguments}"),
        (b'{"action": {"message": 5}}', 422, "must be text, got 5"),
        (b'{"action": {"tool_calls": [{"tool": "get_order", "args": {}}]}}', 422, "a tool call has tool and arguments"),
    ],
)
def test_a_malformed_step_is_refused_with_what_is_wrong_and_the_episode_goes_on(base_url, body, status, message):
    start = _post(base_url, "/reset", {"task_id": TASK})
    if body.startswith(b'{"action"'):
        body = json.dumps({"episode_id": start["episode_id"], **json.loads(body)}).encode()
    got, text = _status(base_url, "/step", body)
    detail = json.loads(text)["detail"]
    said = " ".join(e["msg"] for e in detail) if isinstance(detail, list) else detail
    assert got == status
    assert message in said
    assert len(text) < 2_000  # what was sent is never echoed back whole
    _post(base_url, "/step", {"episode_id": start["episode_id"], "action": {"tool_calls": [REFUND]}})
    _post(base_url, "/step", {"episode_id": start["episode_id"], "action": {"tool_calls": [SOLVE]}})
    last = _post(base_url, "/step", {"episode_id": start["episode_id"], "action": {"end": True}})
    assert last["done"]
    assert last["reward"] == 1


def test_a_malformed_action_lists_every_problem_with_its_place(base_url):
    start = _post(base_url, "/reset", {"task_id": TASK})
    action = {"tool_calls": [{"tool": "", "arguments": []}], "end": "yes", "mesage": "hi"}
    step = {"episode_id": start["episode_id"], "action": action}
    status, text = _status(base_url, "/step", json.dumps(step).encode())
    assert status == 422
    places = [e["loc"] for e in json.loads(text)["detail"]]
    assert places == [
        ["action", "'mesage'"],
        ["action", "tool_calls", 0, "tool"],
        ["action", "tool_calls", 0, "arguments"],
        ["action", "end"],
    ]
    _post(base_url, "/step", {"episode_id": start["episode_id"], "action": {"end": True}})


def test_an_unknown_id_is_quoted_by_a_short_prefix_only(base_url):
    status, text = _status(base_url, "/reset", json.dumps({"task_id": "x" * 60_000}).encode())
    assert status == 400
    assert "... (60002 characters)" in text
    assert len(text) < 300


def test_a_second_step_while_one_is_answered_is_refused_with_409(base_url):
    start = _post(base_url, "/reset", {"task_id": TASK})
    step = {"episode_id": start["episode_id"], "action": {"tool_calls": [REFUND]}}
    with SERVERS[base_url].episodes[start["episode_id"]].busy:  # as if another step were being answered
        status, text = _status(base_url, "/step", json.dumps(step).encode())
    assert status == 409
    assert "still answering another step" in json.loads(text)["detail"]
    _post(base_url, "/step", {"episode_id": start["episode_id"], "action": {"end": True}})


def test_live_episodes_are_capped_and_idle_ones_expire_and_are_freed():
    env = EnvServer(DOMAINS, tasks=[TASK], max_episodes=2, idle_timeout_s=0.5)
    http = HttpServer(env, port=0)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{http.server_port}"
    try:
        first = _post(url, "/reset", {"task_id": TASK})
        _post(url, "/reset", {"task_id": TASK})
        status, text = _status(url, "/reset", json.dumps({"task_id": TASK}).encode())
        assert status == 503
        assert "2 episodes are live" in json.loads(text)["detail"]
        deadline = time.monotonic() + 10
        while env.episodes and time.monotonic() < deadline:
            time.sleep(0.05)
        assert env.episodes == {}  # both abandoned episodes expired and were forgotten
        status, text = _status(url, "/step", json.dumps({"episode_id": first["episode_id"], "action": {}}).encode())
        assert status == 400
        assert "or it expired" in json.loads(text)["detail"]
        assert _post(url, "/reset", {"task_id": TASK})["done"] is False  # room again
    finally:
        http.shutdown()


def test_a_burst_of_clients_is_served_without_dropping_any(base_url):
    def client(_: int) -> str:
        try:
            start = _post(base_url, "/reset", {"task_id": TASK})
            return (
                "ok"
                if _post(base_url, "/step", {"episode_id": start["episode_id"], "action": {"end": True}})["done"]
                else "not done"
            )
        except OSError as exc:  # refused or reset: the listen backlog overflowed
            return f"dropped: {exc}"

    with ThreadPoolExecutor(60) as pool:
        outcomes = list(pool.map(client, range(60)))
    assert outcomes == ["ok"] * 60


def test_openenv_validate_passes_every_criterion(base_url):
    import shutil
    import subprocess

    done = subprocess.run(
        [shutil.which("openenv") or "openenv", "validate", "--url", base_url, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(done.stdout)
    failed = [c for c in report["criteria"] if not c["passed"]]
    assert report["passed"], failed
    assert not failed
    assert len(report["criteria"]) >= 6, failed
    assert report["mode"] == "simulation"


def test_openenvs_own_client_resets_steps_and_reads_state_over_the_websocket(base_url):
    import asyncio

    from openenv.core.generic_client import GenericEnvClient  # type: ignore[import-untyped]  # openenv has no py.typed

    async def episode(actions: list[dict]) -> tuple[Any, list[Any], dict]:  # openenv's StepResult is untyped
        async with GenericEnvClient(base_url=base_url) as env:
            start = await env.reset(task_id=TASK)
            steps = [await env.step(action) for action in actions]
            return start, steps, await env.state()

    start, steps, state = asyncio.run(episode([{"tool_calls": [REFUND]}, {"tool_calls": [SOLVE]}, {"end": True}]))
    assert start.observation["task_id"] == TASK
    assert start.observation["tools"]
    assert not start.done
    assert json.loads(steps[0].observation["messages"][-1]["content"])["id"] == "RF-0001"
    assert (steps[-1].done, steps[-1].reward) == (True, 1)
    assert state["task_id"] == TASK
    assert state["step_count"] == 3
    assert state["done"] is True

    async def malformed() -> str:
        async with GenericEnvClient(base_url=base_url) as env:
            await env.reset(task_id=TASK)
            with pytest.raises(RuntimeError) as refused:
                await env.step({"tool_calls": "issue_refund"})
            assert (await env.step({"end": True})).reward == 0  # the episode goes on after a refused action
            return str(refused.value)

    assert "action.tool_calls: must be a list" in asyncio.run(malformed())


def test_a_reset_without_a_task_picks_one_at_random_and_names_it(base_url):
    seen = {_post(base_url, "/reset", {})["observation"]["task_id"] for _ in range(12)}
    assert seen == {TASK, "test_case_RT001_001"}  # both tasks of the pool come up (1 - 2/2**12 likely)
    seeded = [_post(base_url, "/reset", {"seed": 5})["observation"]["task_id"] for _ in range(3)]
    assert len(set(seeded)) == 1  # a seed in the call makes the choice repeatable


def test_a_closed_websocket_frees_its_episode(base_url):
    import asyncio

    from openenv.core.generic_client import GenericEnvClient

    env = SERVERS[base_url]

    async def abandon() -> str:
        async with GenericEnvClient(base_url=base_url) as client:
            start = await client.reset(task_id=TASK)
            return (await client.state())["episode_id"] if start else ""

    episode_id = asyncio.run(abandon())
    deadline = time.monotonic() + 10
    while episode_id in env.episodes and time.monotonic() < deadline:
        time.sleep(0.05)
    assert episode_id not in env.episodes


def _rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1]) / 1024


def _refused_while_sending(port: int, head: bytes, chunk: bytes, limit: int) -> tuple[bytes, float, int]:
    """Send `head`, then `chunk` after chunk (up to `limit` bytes) until the server answers; its answer and time."""
    import select
    import socket

    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(head)
        sent = 0
        while sent < limit and not select.select([conn], [], [], 0)[0]:
            try:
                conn.sendall(chunk)
            except OSError:  # the server answered and closed: the rest is not read
                break
            sent += len(chunk)
        answer = conn.recv(65536)
        took = time.monotonic() - started
        try:
            while part := conn.recv(65536):  # the server closes the connection after its answer
                answer += part
        except ConnectionResetError:  # closed with our unread bytes in its buffer
            pass
    return answer, took, sent


def test_a_twenty_megabyte_body_is_refused_within_a_second_without_being_read():
    import subprocess
    import sys

    server = subprocess.Popen(
        [sys.executable, "-m", "pytest_thinkingbox.cli", "serve-env", "--root", str(DOMAINS), "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline().rsplit(":", 1)[1].split()[0])
        _status(f"http://127.0.0.1:{port}", "/reset", b'{"task_id": "none"}')  # warm: the request path is loaded
        idle = _rss_mb(server.pid)
        size = 20 * 1024 * 1024
        declared = f"POST /step HTTP/1.1\r\nHost: x\r\nContent-Length: {size}\r\n\r\n".encode()
        answer, took, _ = _refused_while_sending(port, declared, b"x" * 65536, size)
        assert answer.startswith(b"HTTP/1.1 413"), (answer[:80], took)
        assert took < 1, (answer[:80], took)
        chunked = b"POST /reset HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        answer, took, sent = _refused_while_sending(port, chunked, b"10000\r\n" + b"x" * 65536 + b"\r\n", size)
        assert answer.startswith(b"HTTP/1.1 413"), (answer[:80], took, sent)
        assert took < 1, (answer[:80], took, sent)
        assert sent < size, (answer[:80], took, sent)
        assert b"this server reads at most" in answer or b"the most this server reads" in answer
        assert _rss_mb(server.pid) < idle + 50
    finally:
        server.terminate()
        server.wait(timeout=10)
