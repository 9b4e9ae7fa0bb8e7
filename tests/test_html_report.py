"""The HTML report: its text (sections, escaping, nothing fetched) and the page in a real headless browser.

The report documents here are built from crafted records by `run_document`, following the report
document of issue 6 (runs with manifest, aggregate, completeness, cost, signatures and records), so
these tests do not depend on the results-file reader.
"""

from __future__ import annotations

import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest
from scipy import stats  # type: ignore[import-untyped]  # no stubs installed for scipy

from pytest_thinkingbox.campaign.metrics import aggregate
from pytest_thinkingbox.campaign.views.html import render_html

if TYPE_CHECKING:
    from pytest_thinkingbox.campaign.attempt_record import AttemptRecord

CHROMIUM = "/usr/bin/chromium"
HOSTILE = "</script><img src=x onerror=\"document.title='owned'\">"
SIGNATURE_ORDER = [
    "limit_reached", "precondition_unrecovered", "empty_lookup_unrecovered", "tool_error_unrecovered",
    "closed_without_write", "wrong_value", "missing_effect", "extra_effect", "rubric_failed", "assertion_failed",
]  # fmt: skip


def record(task: str, attempt: int, outcome: str = "passed", domain: str = "retail", **fields: Any) -> dict[str, Any]:
    """An attempt record as `--tb-results` writes it: a refund looked up and issued, then a closing message."""
    base = {
        "run": "run-a", "bundle": "b" * 16, "task": task, "domain": domain, "attempt": attempt,
        "nodeid": f"domains/{domain}/test_x.py::{task}[attempt{attempt:02d}]", "agent": "flaky", "user": "scripted",
        "seed": 0, "markers": [], "outcome": outcome, "error": None, "failure": None, "signature": None,
        "wrong": 0, "missing": 0, "extra": 0, "differences": [], "tool_calls": 2, "tool_errors": 0,
        "end_reason": "agent_end", "steps": 3, "turns": 0,
        "start_hash": "s" * 16, "end_hash": "g" * 16, "golden_hash": "g" * 16,
        "transcript": [
            {"role": "user", "content": "Please refund the 40 dollars."},
            {"role": "assistant", "content": None,
             "tool_calls": [{"id": "call_1", "tool": "get_order", "arguments": {"order_id": "O-1"}}]},
            {"role": "tool", "call_id": "call_1", "tool": "get_order", "content": '{"id": "O-1"}', "error": None},
            {"role": "assistant", "content": None,
             "tool_calls": [{"id": "call_2", "tool": "issue_refund", "arguments": {"amount_cents": 4000}}]},
            {"role": "tool", "call_id": "call_2", "tool": "issue_refund", "content": '{"ok": true}', "error": None},
            {"role": "assistant", "content": "Done: 40 dollars refunded."},
        ],
        "timing": {}, "duration_s": 0.5, "fault": None,
    }  # fmt: skip
    return base | fields


def wrong_refund(task: str, attempt: int, **fields: Any) -> dict[str, Any]:
    """A failed attempt: the refund went out as 400 cents instead of 4000."""
    diff = {"kind": "wrong", "table": "refunds", "key": "R-1", "field": "amount_cents", "expected": 4000, "actual": 400}
    failure = "end state differs from the golden end state: 1 wrong, 0 missing, 0 extra"
    lookup = [  # a failed look-up first, recovered by the next call
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "call_0", "tool": "get_order", "arguments": {"order_id": "O-9"}}]},
        {"role": "tool", "call_id": "call_0", "tool": "get_order", "content": '{"error": "no order O-9"}',
         "error": "NOT_FOUND"},
    ]  # fmt: skip
    failed = record(task, attempt, "failed", wrong=1, differences=[diff], failure=failure, signature="wrong_value")
    return failed | {"transcript": failed["transcript"][:1] + lookup + failed["transcript"][1:]} | fields


def run_document(run_id: str, records: list[dict[str, Any]], k: int, **overrides: Any) -> dict[str, Any]:
    """One run of the report document, computed from its records the way the contract defines it."""
    agg = aggregate(cast("list[AttemptRecord]", records), k)  # hand-made records, as a results file has them
    seen = {(r["task"], r["attempt"]) for r in records}
    missing = [[t, a] for t in agg["per_task"] for a in range(1, k + 1) if (t, a) not in seen]
    overall: dict[str, int] = {}
    domains: dict[str, dict[str, int]] = {}
    examples: dict[str, list[list[Any]]] = {}
    for r in records:
        if r["signature"]:
            overall[r["signature"]] = overall.get(r["signature"], 0) + 1
            per_domain = domains.setdefault(r["domain"], {})
            per_domain[r["signature"]] = per_domain.get(r["signature"], 0) + 1
            examples.setdefault(r["signature"], []).append([r["task"], r["attempt"]])
    manifest = {
        "run": run_id, "bundle": "b" * 16, "plugin_version": "0.1.0", "agent": "flaky", "user": "scripted",
        "judge": "phrases", "models": {}, "prices": {}, "seed": 0, "k": k,
        "started": "2026-11-30T02:15:00+00:00", "finished": "2026-11-30T02:16:00+00:00",
    }  # fmt: skip
    return {
        "id": run_id, "label": run_id, "manifest": manifest, "aggregate": agg,
        "complete": not missing, "missing": missing[:50], "missing_count": len(missing), "cost": None,
        "signatures": {"overall": overall, "domains": domains, "examples": examples},
        "records": records,
    } | overrides  # fmt: skip


def document(*runs: dict[str, Any], frontier: dict[str, list[str]] | None = None) -> dict[str, Any]:
    return {
        "runs": list(runs),
        "frontier": frontier or {"per_success": [], "per_dependable": []},
        "signature_order": SIGNATURE_ORDER,
    }


def two_runs(*more_a: dict[str, Any]) -> dict[str, Any]:
    """Run a: RT1 passes 2 of 2, RT2 1 of 2 (attempt 2 wrong). Run b: one system error, and RT2 #2 missing."""
    a_records = [record("RT1", 1), record("RT1", 2), record("RT2", 1), wrong_refund("RT2", 2), *more_a]
    a = run_document("run-a", a_records, k=2)
    error = {"stage": "backend", "type": "OperationalError", "message": "database is locked"}
    b_records = [record("RT1", 1), record("RT1", 2, "error", error=error), record("RT2", 1)]
    b = run_document("run-b", [r | {"run": "run-b"} for r in b_records], k=2)
    a["cost"] = {"total": 0.8, "per_attempt": 0.2, "per_success": 0.2 / 0.75, "per_dependable": 0.8}
    b["cost"] = {"total": 0.3, "per_attempt": 0.1, "per_success": 0.1 / 0.75, "per_dependable": 0.3}
    return document(a, b, frontier={"per_success": ["run-b"], "per_dependable": ["run-b"]})


class Elements(HTMLParser):
    """Every start tag of a page as (tag, attributes), and the text of its script elements."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.scripts: list[str] = []
        self._in_script = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)

    def ids(self) -> set[str]:
        return {a["id"] for _, a in self.tags if "id" in a}

    def with_class(self, *classes: str) -> list[dict[str, str]]:
        return [a for _, a in self.tags if set(classes) <= set(a.get("class", "").split())]

    def cells(self, outcome: str) -> list[dict[str, str]]:
        """The grid's cells of one outcome class (the legend's swatches have no data-a)."""
        return [a for a in self.with_class("cell", outcome) if "data-a" in a]


def test_every_section_is_there_with_the_hand_computed_figures() -> None:
    page = render_html(two_runs())
    ids = Elements(page).ids()
    expected = {"runs", "chart-reliability", "chart-cost", "chart-domains", "signatures", "grid-1", "grid-2"}
    assert expected | {"attempt-viewer", "attempt-data"} <= ids
    # Run a: pass@1 = (2/2 + 1/2) / 2 = 0.75, SE = sd(1, 0.5) / sqrt(2) = 0.25, and with 1 df the t interval
    # covers [0, 1]; k/k: RT1 only, 1 of 2 tasks = 50%; pass^2 = (C(2,2)/C(2,2) + C(1,2)/C(2,2)) / 2 = 0.5.
    # pass@2 = (1 + 1) / 2 = 1 with no spread: the Jeffreys interval of 2 of 2, [Beta(2.5, 0.5) 2.5%, 1], marked *.
    jeffreys = stats.beta.ppf(0.025, 2.5, 0.5)
    assert '<td>0.750 <small class="se">±0.250</small><br><small class="ci">[0.000, 1.000]</small></td>' in page
    assert f'<td>1.000 <small class="se">±0.000</small><br><small class="ci">[{jeffreys:.3f}, 1.000]*</small>' in page
    assert '<td>1 (50%)<br><small class="ci">[0.000, 1.000]</small></td>' in page
    assert "<th>pass@2</th><th>pass^2</th><th>2/2</th><th>flaky</th><th>gap</th>" in page
    assert "retention" not in page
    assert "Incomplete: 1 attempt(s) missing" in page
    assert "RT2 #2" in page
    assert "per success <b>$0.267</b>" in page  # 0.2 / 0.75
    assert "wrong_value" in page


def test_grid_has_one_cell_per_attempt_coloured_by_outcome() -> None:
    elements = Elements(render_html(two_runs()))
    cells = elements.with_class("cell")
    assert len([c for c in cells if "data-a" in c]) == 8  # 2 runs x 2 tasks x 2 attempts (the rest: the legend)
    assert [c["title"] for c in elements.cells("fail")] == ["RT2 #2: failed, wrong_value"]
    assert [c["title"] for c in elements.cells("error")] == ["RT1 #2: error"]
    assert len(elements.cells("pass")) == 5  # run a: RT1 #1, RT1 #2, RT2 #1; run b: RT1 #1, RT2 #1
    missing = elements.cells("missing")
    assert [(c["data-task"], c["data-attempt"], c["data-a"]) for c in missing] == [("RT2", "2", "-1")]


def test_cells_and_signature_examples_point_at_their_records() -> None:
    elements = Elements(render_html(two_runs()))
    data = json.loads(next(s for s in elements.scripts if s.lstrip().startswith("{")))
    failed = elements.cells("fail")[0]
    shown = data["attempts"][int(failed["data-a"])]
    assert (shown["task"], shown["attempt"], shown["outcome"]) == ("RT2", 2, "failed")
    assert shown["differences"][0]["actual"] == 400
    examples = elements.with_class("example")
    assert examples
    assert {data["attempts"][int(e["data-a"])]["signature"] for e in examples} == {"wrong_value"}


def test_hostile_transcript_is_escaped_and_cannot_end_the_script() -> None:
    hostile = wrong_refund("RT2", 2, domain=HOSTILE) | {"failure": HOSTILE}
    hostile["transcript"] = [{"role": "user", "content": HOSTILE}, {"role": "assistant", "content": HOSTILE}]
    hostile["differences"][0]["actual"] = HOSTILE
    page = render_html(document(run_document("run-a", [record("RT1", 1), hostile], k=1, label=HOSTILE)))
    assert "<img" not in page
    assert 'onerror="' not in page
    assert page.count("</script>") == 2  # the data element and the viewer script, nothing else
    elements = Elements(page)
    assert not [t for t, _ in elements.tags if t == "img"]
    data = json.loads(elements.scripts[0])  # the escaped JSON still reads back to the very same text
    assert data["attempts"][1]["transcript"][0]["content"] == HOSTILE
    assert data["attempts"][1]["differences"][0]["actual"] == HOSTILE


def test_nothing_is_fetched_from_the_network() -> None:
    doc = two_runs()
    doc["runs"][0]["manifest"]["models"] = {"agent": {"model": "m", "base_url": "https://api.example.com/v1"}}
    page = render_html(doc)
    tags = Elements(page).tags
    assert not [a for _, a in tags if re.match(r"\s*(https?:)?//", a.get("src", "") + a.get("href", ""))]
    assert not [t for t, _ in tags if t in {"link", "iframe", "img", "object", "embed"}]
    assert "@import" not in page
    assert "url(" not in page
    assert "@font-face" not in page
    assert "default-src 'none'" in page
    assert "https://api.example.com/v1" in page


def test_without_cost_figures_the_cost_chart_says_so() -> None:
    doc = two_runs()
    for run in doc["runs"]:
        run["cost"] = None
    page = render_html(doc)
    cost = page.split('id="chart-cost"', 1)[1].split("</section>", 1)[0]
    assert "No cost figures" in cost
    assert "<svg" not in cost
    with_cost = render_html(two_runs()).split('id="chart-cost"', 1)[1].split("</section>", 1)[0]
    # run b has no task with k graded attempts (a system error, a missing attempt): no k/k share to plot
    assert with_cost.count("<svg") == 2
    assert with_cost.count('class="frontier"') == 1
    assert "1 run(s) without this figure are not plotted" in with_cost


def test_runs_of_different_k_never_share_a_chart_axis() -> None:
    a = run_document("run-a", [record("RT1", 1), record("RT1", 2), record("RT2", 1), wrong_refund("RT2", 2)], k=2)
    three = [record(t, i) | {"run": "run-c"} for t in ("RT1", "RT2") for i in (1, 2, 3)]
    c = run_document("run-c", three, k=3)
    page = render_html(document(a, c))
    reliability = page.split('id="chart-reliability"', 1)[1].split("</section>", 1)[0]
    assert reliability.count("<svg") == 2
    assert "The runs have different k" in reliability
    assert 'id="reliability-k2"' in reliability
    assert 'id="reliability-k3"' in reliability
    domains = page.split('id="chart-domains"', 1)[1].split("</section>", 1)[0]
    assert domains.count("<svg") == 2
    assert "<figcaption>k = 3</figcaption>" in domains


@pytest.fixture(scope="session")
def chromium() -> str:
    """Debian's chromium for Playwright; skipped without it, except under CI (CI=true), where that fails."""
    problem = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        problem = f"Playwright is not installed ({exc}); pip install playwright"
    if problem is None and not Path(CHROMIUM).exists():
        problem = f"no browser at {CHROMIUM}; apt-get install chromium"
    if problem:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the browser test cannot run: {problem}")
        pytest.skip(problem)
    return CHROMIUM


def test_report_in_a_headless_browser(chromium: str, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    hostile = record("RT3", 1, "failed", signature="assertion_failed", failure=HOSTILE)
    hostile["transcript"] = [{"role": "user", "content": HOSTILE}]
    doc = two_runs(hostile)
    path = tmp_path / "report.html"
    path.write_text(render_html(doc), encoding="utf-8")
    console, errors, requests = [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(path.as_uri())
            for selector in ("#chart-reliability svg", "#chart-cost svg", "#chart-domains svg", "#grid-1", "#grid-2"):
                assert page.locator(selector).first.is_visible(), selector
            # run b has no task with 2 graded attempts, so no k/k: one point, and a note naming run b
            assert page.locator("#chart-reliability circle").count() == 1
            assert "no task with 2 graded attempts: run-b" in page.locator("#chart-reliability").inner_text()
            assert page.locator("#grid-1 .cell").count() == 6
            assert page.locator("#grid-2 .cell").count() == 4

            page.locator('#grid-1 .cell.fail[title^="RT2 #2"]').click()
            viewer = page.locator("#attempt-viewer")
            transcript, diff = viewer.locator(".transcript").inner_text(), viewer.locator(".state-diff").inner_text()
            assert "issue_refund" in transcript
            assert '"amount_cents": 4000' in transcript
            assert "refunds" in diff
            assert "amount_cents" in diff
            assert "4000" in diff
            assert "400" in diff
            assert "wrong_value" in viewer.inner_text()
            assert viewer.is_visible()
            assert viewer.locator(".msg.tool.err").inner_text().startswith("tool result: get_order — NOT_FOUND")

            page.locator('#grid-2 .cell.error[title^="RT1 #2"]').click()
            assert "database is locked" in viewer.locator(".errorbox").inner_text()
            page.locator('#grid-2 .cell.missing[data-task="RT2"]').click()
            assert "RT2 #2: not recorded." in viewer.inner_text()
            page.locator("#signatures a.example", has_text="RT2 #2").click()
            assert "issue_refund" in viewer.locator(".transcript").inner_text()

            page.locator('#grid-1 .cell[title^="RT3 #1"]').click()
            assert HOSTILE in viewer.locator(".transcript").inner_text()  # shown as text, not run
            assert page.locator("img").count() == 0
            assert page.title() != "owned"
        finally:
            browser.close()
    assert console == []
    assert errors == []
    assert requests
    assert all(url.startswith("file://") for url in requests)
