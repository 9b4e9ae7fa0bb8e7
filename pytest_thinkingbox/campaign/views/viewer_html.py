"""The HTML report's attempt viewer: the fields it shows, the grid and links that open it, and its script."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from .common_html import _label, _swatch

OUTCOME_CLASS = {"passed": "pass", "failed": "fail", "error": "error"}
OUTCOME_LEGEND = (("pass", "passed"), ("fail", "failed"), ("error", "system error"), ("missing", "missing"))
#: The record fields the attempt viewer shows; the rest stay in the results file.
VIEWER_FIELDS = (
    "task", "domain", "attempt", "outcome", "signature", "failure", "error", "usage", "transcript", "differences",
    "wrong", "missing", "extra", "end_reason", "steps", "turns", "tool_calls", "tool_errors", "fault", "duration_s",
    "violations",
)  # fmt: skip


def _attempt_index(runs: Sequence[Mapping[str, Any]]) -> tuple[dict[tuple[int, str, int], int], list[dict]]:
    """The viewer's attempts as one list, and each (run number, task, attempt)'s place in it."""
    index: dict[tuple[int, str, int], int] = {}
    attempts: list[dict[str, Any]] = []
    for n, run in enumerate(runs, 1):
        for record in run.get("records", []):
            index[n, record["task"], record["attempt"]] = len(attempts)
            attempts.append({"run": n - 1, **{f: record.get(f) for f in VIEWER_FIELDS}})
    return index, attempts


def _grid(run: Mapping[str, Any], n: int, index: Mapping[tuple[int, str, int], int]) -> str:
    agg, records = run["aggregate"], {(r["task"], r["attempt"]): r for r in run.get("records", [])}
    tasks = {task: c["domain"] for task, c in agg["per_task"].items()}
    for task, _ in run.get("missing") or []:
        tasks.setdefault(task, "")
    width = max([agg["k"], *(attempt for _, attempt in records)])
    rates = run.get("task_rates") or {}
    rows, domain = [], None
    for task, task_domain in tasks.items():
        if task_domain != domain:
            domain = task_domain
            rows.append(f'<div class="domain">{escape(domain or "(no records)")}</div>')
        cells = [_cell(n, task, attempt, records.get((task, attempt)), index) for attempt in range(1, width + 1)]
        rate = _task_rate(rates.get(task))
        rows.append(f'<div class="row"><span class="task">{escape(task)}</span>{"".join(cells)}{rate}</div>')
    head = f"<h3>{_swatch(n)}{escape(_label(run))}</h3>"
    return f'<div class="grid" id="grid-{n}">{head}<div class="rows">{"".join(rows)}</div></div>'


def _task_rate(rate: Mapping[str, Any] | None) -> str:
    """A task's passes over graded attempts, with the Jeffreys 95% interval of its pass rate as the tooltip."""
    if not rate or rate.get("pass@1") is None:
        return ""
    low, high = rate["ci95"]
    tip = f"pass rate {rate['pass@1']:.3f}, Jeffreys 95% interval [{low:.3f}, {high:.3f}]"
    return f'<span class="rate" title="{tip}">{rate["passed"]}/{rate["graded"]} [{low:.2f}, {high:.2f}]</span>'


def _cell(n: int, task: str, attempt: int, record: Mapping[str, Any] | None, index: Mapping[tuple, int]) -> str:
    """One attempt's button; a missing attempt is clickable too, and the viewer says it was not recorded."""
    if record is None:
        where = f'data-a="-1" data-task="{escape(task)}" data-attempt="{attempt}"'
        return f'<button class="cell missing" {where} title="{escape(task)} #{attempt}: missing"></button>'
    what = record["outcome"] + (f", {record['signature']}" if record.get("signature") else "")
    kind = OUTCOME_CLASS.get(record["outcome"], "error")
    title = escape(f"{task} #{attempt}: {what}")
    return f'<button class="cell {kind}" data-a="{index[n, task, attempt]}" title="{title}"></button>'


def _link(i: int, text: str) -> str:
    return f'<a href="#attempt-viewer" class="example" data-a="{i}">{escape(text)}</a>'


SCRIPT = """
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("attempt-data").textContent);
  var body = document.getElementById("viewer-body");
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent, children) { children.forEach(function (c) { if (c) parent.appendChild(c); }); return parent; }
  function json(v) { return typeof v === "string" ? v : JSON.stringify(v, null, 2); }
  function pretty(text) { try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; } }
  function fact(dl, name, value) { add(dl, [add(el("div"), [el("dt", null, name), el("dd", null, value)])]); }
  function facts(a) {
    var dl = el("dl", "facts");
    [["run", data.runs[a.run]], ["outcome", a.outcome], ["signature", a.signature], ["end reason", a.end_reason],
     ["steps / turns", a.steps + " / " + a.turns], ["tool calls / errors", a.tool_calls + " / " + a.tool_errors],
     ["wrong / missing / extra", a.wrong + " / " + a.missing + " / " + a.extra], ["fault", a.fault],
     ["policy rules broken", (a.violations || []).map(function (v) { return v.rule + ": " + v.message; })
       .join("; ") || null],
     ["duration", a.duration_s == null ? null : a.duration_s.toFixed(2) + " s"]].forEach(function (f) {
      if (f[1] !== null && f[1] !== undefined) fact(dl, f[0], f[1]);
    });
    Object.keys(a.usage || {}).forEach(function (role) {
      var u = a.usage[role];
      fact(dl, role + " usage", u.model + ": " + u.input_tokens + " in (" + u.cached_tokens + " cached), " +
        u.output_tokens + " out (" + u.reasoning_tokens + " reasoning), " + u.calls + " calls, " + u.latency_s +
        " s, " + u.retries + " retries");
    });
    return dl;
  }
  function message(m) {
    if (m.role === "tool") {
      var box = el("div", "msg tool" + (m.error ? " err" : ""));
      return add(box, [el("div", "who", "tool result: " + m.tool + (m.error ? " — " + m.error : "")),
                       el("pre", null, pretty(m.content))]);
    }
    if (m.tool_calls && m.tool_calls.length) {
      var calls = el("div");
      m.tool_calls.forEach(function (c) {
        var box = el("div", "msg call");
        add(calls, [add(box, [el("div", "who", "tool call: " + c.tool), el("pre", null, json(c.arguments))])]);
      });
      return calls;
    }
    return add(el("div", "msg " + m.role), [el("div", "who", m.role), el("pre", null, m.content)]);
  }
  function diff(a) {
    var d = a.differences || [];
    if (!d.length) {
      return el("p", "note", a.outcome === "error" ? "No state difference: the attempt ended in a system error."
        : a.wrong + a.missing + a.extra ? "No difference details recorded." : "The end state matches the golden one.");
    }
    var t = add(el("table", "diff"), [add(el("tr"), ["kind", "table", "key", "field", "expected", "actual"].map(
      function (h) { return el("th", null, h); }))]);
    d.forEach(function (x) {
      add(t, [add(el("tr", "kind-" + x.kind), [el("td", null, x.kind), el("td", null, x.table), el("td", null, x.key),
        el("td", null, x.field === null ? "(whole row)" : x.field), add(el("td"), [el("pre", null, json(x.expected))]),
        add(el("td"), [el("pre", null, json(x.actual))])])]);
    });
    return t;
  }
  function open(target) {
    var i = Number(target.dataset.a), a = data.attempts[i];
    document.querySelectorAll(".cell.selected").forEach(function (c) { c.classList.remove("selected"); });
    if (target.classList.contains("cell")) target.classList.add("selected");
    if (!a) {
      body.replaceChildren(el("p", "warn", target.dataset.task + " #" + target.dataset.attempt + ": not recorded."));
    } else {
      var messages = (a.transcript || []).map(message);
      var left = add(el("div", "pane transcript"), [el("h4", null, "Transcript")].concat(messages));
      var right = add(el("div", "pane state-diff"), [el("h4", null, "State difference"), diff(a)]);
      var e = a.error;
      body.replaceChildren(el("h3", null, a.task + " #" + a.attempt + " (" + a.domain + ")"), facts(a),
        e ? el("pre", "errorbox", "system error in " + e.stage + ": " + e.type + ": " + e.message) : el("span"),
        a.failure ? el("pre", "errorbox", a.failure) : el("span"), add(el("div", "panes"), [left, right]));
    }
    document.getElementById("attempt-viewer").scrollIntoView();
  }
  document.addEventListener("click", function (ev) {
    var target = ev.target.closest("[data-a]");
    if (!target) return;
    ev.preventDefault();
    open(target);
  });
})();
"""
