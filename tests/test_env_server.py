"""The environment server: episodes over HTTP, isolated, graded by the task's checks."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from pytest_thinkingbox.serve.env_server import EnvServer, serve

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
    http = serve(env, port=0)
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
    assert start["done"] is False and start["reward"] is None
    assert start["observation"]["messages"][0]["role"] == "user" and start["observation"]["policy"]
    assert {t["name"] for t in start["observation"]["tools"]} >= {"issue_refund", "update_ticket", "search_policy"}
    assert json.loads(seen[0]["observation"]["messages"][-1]["content"])["id"] == "RF-0001"
    assert (last["done"], last["reward"]) == (True, 1)
    _, _, idle = _episode(base_url, [{"end": True}])
    assert idle["reward"] == 0 and idle["info"] == {"reason": "a check failed"}  # not which: that is expected state


def test_private_state_never_leaves_the_server(base_url):
    start, seen, last = _episode(
        base_url, [{"message": "Which would you prefer, a refund or a replacement?"}, {"end": True}]
    )
    everything = json.dumps([start, *seen])
    # the order id and email are the user's private facts (not asked for), 19899 the golden refund amount
    assert "O-5001" not in everything and "@example" not in everything and "19899" not in everything
    reply = seen[0]["observation"]["messages"][-1]
    assert reply["role"] == "user" and "a refund, not a replacement" in reply["content"]  # asked for, so revealed


def test_twenty_concurrent_episodes_see_only_their_own_writes(base_url):
    def run(i: int) -> tuple[int, str, int]:
        actions = (
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
    assert start["done"] is True and start["reward"] is None
    assert start["error"] == {"stage": "backend", "message": "a fresh backend failed: RuntimeError: out of memory"}


def test_unknown_tasks_and_episodes_are_client_errors(base_url):
    with pytest.raises(urllib.error.HTTPError) as unknown:
        _post(base_url, "/reset", {"task_id": "test_case_XX001_001"})
    assert unknown.value.code == 400 and "no task 'test_case_XX001_001'" in unknown.value.read().decode()
    with pytest.raises(urllib.error.HTTPError) as missing:
        _post(base_url, "/step", {"episode_id": "nope", "action": {"end": True}})
    assert missing.value.code == 400 and "call /reset first" in missing.value.read().decode()


def _status(base_url: str, path: str, data: bytes) -> tuple[int, str]:
    request = urllib.request.Request(base_url + path, data=data, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"[1, 2]", "the request body must be a JSON object"),
        (b"not json", "Expecting value"),
        (b'{"action": "end"}', "action must be an object"),
        (b'{"action": {"tool_calls": [1]}}', "action.tool_calls[1] must be"),
        (b'{"action": {"tool_calls": "issue_refund"}}', "action.tool_calls must be a list"),
        (b'{"action": {"message": 5}}', "action.message must be text"),
    ],
)
def test_a_malformed_step_is_a_400_with_a_message_and_the_episode_goes_on(base_url, body, message):
    start = _post(base_url, "/reset", {"task_id": TASK})
    payload = json.loads(body) if body.startswith(b"{") else None
    if isinstance(payload, dict):
        body = json.dumps({"episode_id": start["episode_id"], **payload}).encode()
    status, text = _status(base_url, "/step", body)
    assert status == 400 and message in json.loads(text)["detail"]
    last = _post(base_url, "/step", {"episode_id": start["episode_id"], "action": {"end": True}})
    assert last["done"] and last["reward"] == 0


def test_a_second_step_while_one_is_answered_is_refused_with_409(base_url):
    start = _post(base_url, "/reset", {"task_id": TASK})
    step = {"episode_id": start["episode_id"], "action": {"tool_calls": [REFUND]}}
    with SERVERS[base_url].episodes[start["episode_id"]].busy:  # as if another step were being answered
        status, text = _status(base_url, "/step", json.dumps(step).encode())
    assert status == 409 and "still answering another step" in json.loads(text)["detail"]
    _post(base_url, "/step", {"episode_id": start["episode_id"], "action": {"end": True}})


def test_live_episodes_are_capped_and_idle_ones_expire_and_are_freed():
    env = EnvServer(DOMAINS, tasks=[TASK], max_episodes=2, idle_timeout_s=0.5)
    http = serve(env, port=0)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{http.server_port}"
    try:
        first = _post(url, "/reset", {"task_id": TASK})
        _post(url, "/reset", {"task_id": TASK})
        status, text = _status(url, "/reset", json.dumps({"task_id": TASK}).encode())
        assert status == 503 and "2 episodes are live" in json.loads(text)["detail"]
        deadline = time.monotonic() + 10
        while env.episodes and time.monotonic() < deadline:
            time.sleep(0.05)
        assert env.episodes == {}  # both abandoned episodes expired and were forgotten
        status, text = _status(url, "/step", json.dumps({"episode_id": first["episode_id"], "action": {}}).encode())
        assert status == 400 and "or it expired" in json.loads(text)["detail"]
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
