"""The environment server: episodes over HTTP, isolated, graded by the task's checks."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from pytest_thinkingbox.serve.env_server import EnvServer, serve

DOMAINS = Path(__file__).resolve().parent.parent / "domains"
TASK = "test_case_RT001_003"  # an exception 8 days old counts as lost: refund 19,899 in full, ticket solved
REFUND = {
    "tool": "issue_refund",
    "arguments": {"order_id": "O-5001", "amount_cents": 19_899, "reason": "lost_parcel", "method": "original"},
}
SOLVE = {"tool": "update_ticket", "arguments": {"ticket_id": "T-7001", "status": "solved", "category": "delivery"}}


@pytest.fixture(scope="module")
def base_url():
    http = serve(EnvServer(DOMAINS, tasks=[TASK, "test_case_RT001_001"]), port=0)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{http.server_port}"
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
