"""--tb-validate: prove that every selected task tells a careful agent from a careless one.

Each task runs as usual under the golden agent, k times (3 unless --tb-repeat
says otherwise): every attempt must pass, with one end state across attempts
and workers (the controller checks that from the records). On its first
attempt the task function is then called again, on a fresh backend each time,
under each of these, and must fail under every one:

* the noop agent;
* the policy-blind baselines (`agents/blind.py`), unless the task's
  ``tb_validity(baseline_ok={name: reason})`` says that ending is the right one;
* every single-step mutant of its golden calls (`mutants.py`), unless the
  mutant leaves the golden end state, volatile fields included (equivalent);
* the golden calls followed by each declared trap (``tb.run(..., traps=[...])``).

Each variant is graded twice: by the task's own checks (with `run.expect_golden()`
only noting that it was called) and by the end-state comparison. A difference
that is only a volatile field or a stamp of the domain clock (``updated_at``)
catches nothing. The golden values must be visible to the agent or declared
derived (`provenance.py`). The first attempt fails, naming each problem,
unless the task is marked ``@pytest.mark.tb_validity(reason)``.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from ..core.task import Call
from .options import group
from .outcomes import VALIDATION

VALIDITY_MARKER = (
    "tb_validity(reason=None, *, baseline_ok={name: reason}, variant_of={task: reason}, opening_ok=reason): "
    "--tb-validate reports this task's problems without failing it (reason), accepts that a policy-blind "
    "baseline's ending is the right one (baseline_ok), that the task deliberately has another task's shape "
    "(variant_of), or that its opening line may name the decided values (opening_ok)."
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group(parser).addoption(
        "--tb-validate",
        dest="tb_validate",
        action="store_true",
        help="Prove each selected task tells a careful agent from a careless one: golden k times (3 unless "
        "--tb-repeat), then noop, the policy-blind baselines, every single-step mutant of its golden calls and "
        "its traps must fail, and golden values must be visible or declared derived; prints a validity report. "
        "Default: off.",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", VALIDITY_MARKER)
    if config.getoption("tb_validate"):
        config.pluginmanager.register(Validation(), "thinkingbox-validation")


#: How a variant of a task ends.
EQUIVALENT = "equivalent"  # the golden end state, volatile fields included (stamps of the clock aside)
CHECKS = "caught by checks"  # the task's own assertions (or the task itself) failed
STATE = "caught by end state"  # only expect_golden's comparison saw a difference
PASSED = "passed"  # the task passes it: nothing that matters differs, or nothing looked
MUTANT_OUTCOMES = {
    EQUIVALENT: "equivalent",
    CHECKS: "killed by checks",
    STATE: "killed by end state",
    PASSED: "survived",
}


def _validity_signature(
    reason: str | None = None,
    *,
    baseline_ok: dict[str, str] | None = None,
    variant_of: dict[str, str] | None = None,
    opening_ok: str | None = None,
) -> Declared:
    return Declared(reason, baseline_ok or {}, variant_of or {}, opening_ok)


@dataclass(frozen=True)
class Declared:
    """What a task's ``tb_validity`` marker declares."""

    reason: str | None = None  # the task's problems are reported, not failed
    baseline_ok: dict[str, str] = field(default_factory=dict)  # baselines whose ending is right, with why
    variant_of: dict[str, str] = field(default_factory=dict)  # tasks it deliberately has the shape of, with why
    opening_ok: str | None = None  # why its opening line may name the decided values

    def as_dict(self) -> dict[str, Any]:
        return {"baseline_ok": sorted(self.baseline_ok), "variant_of": self.variant_of, "opening_ok": self.opening_ok}


def validity_marker(item: pytest.Item) -> Declared:
    """The task's ``tb_validity`` marker, checked: every reason a non-empty string, every baseline a real one."""
    from ..roles.agents import BASELINES, GUESSES

    marker = item.get_closest_marker("tb_validity")
    if marker is None:
        return Declared()
    try:
        declared = _validity_signature(*marker.args, **marker.kwargs)
    except TypeError as exc:
        raise pytest.UsageError(f"{item.nodeid}: {VALIDITY_MARKER.split(':')[0]}: {exc}") from None
    for name, why in (("reason", declared.reason), ("opening_ok", declared.opening_ok)):
        if why is not None and (not isinstance(why, str) or not why.strip()):
            raise pytest.UsageError(f"{item.nodeid}: tb_validity({name}=...) needs the reason as a non-empty string")
    known = (*BASELINES, *GUESSES)
    for option, named, valid in (
        ("baseline_ok", declared.baseline_ok, known),
        ("variant_of", declared.variant_of, None),
    ):
        for name, why in named.items():
            if valid is not None and name not in valid:
                raise pytest.UsageError(
                    f"{item.nodeid}: tb_validity({option}=...) names {name!r}; baselines are {', '.join(valid)}"
                )
            if not isinstance(why, str) or not why.strip():
                raise pytest.UsageError(f"{item.nodeid}: tb_validity({option}={{{name!r}: reason}}) needs a reason")
    return declared


class Validation:
    """Registered when --tb-validate is given, on every process that runs tasks."""

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:  # a malformed marker is a usage error before anything runs
            validity_marker(item)

    @pytest.hookimpl(wrapper=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> Any:
        __tracebackhide__ = True
        result = yield
        attempt: Any = pyfuncitem.funcargs.get("tb")
        if attempt is None or attempt.attempt != 1 or attempt.last_run is None:
            return result
        declared = validity_marker(pyfuncitem)
        exempt = declared.reason
        argnames = pyfuncitem._fixtureinfo.argnames
        funcargs = {name: pyfuncitem.funcargs[name] for name in argnames}

        def call_task(tb: Any) -> None:
            pyfuncitem.obj(**{**funcargs, "tb": tb})

        verdict = check(call_task, attempt, declared.baseline_ok)
        verdict["exempt"] = exempt
        verdict["declared"] = declared.as_dict()
        pyfuncitem.stash[VALIDATION] = verdict
        problems = problem_lines(verdict)
        if problems and exempt is None:
            raise AssertionError(
                "the task cannot tell a careful agent from a careless one:\n  "
                + "\n  ".join(problems)
                + "\n(add the missing assertion, declare a trap or a derived value, grade the field, or mark the "
                "task @pytest.mark.tb_validity(reason) or tb_validity(baseline_ok={name: reason}))"
            )
        return result


@dataclass(frozen=True)
class Grade:
    """How the task ended for one variant, and the differences that explain it."""

    outcome: str  # EQUIVALENT, CHECKS, STATE or PASSED
    differences: list[str]
    refused: str | None = None  # the last tool call's error, when it failed (a trap the tools refuse)
    rules: list[str] = field(default_factory=list)  # the domain's rules its end state breaks
    tables: frozenset[str] = frozenset()  # the tables its agent wrote


def check(call_task: Callable[[Any], None], attempt: Any, baseline_ok: dict[str, str]) -> dict[str, Any]:
    """Run the task under noop, the baselines, every mutant and every trap; classify each; check provenance."""
    from ..core.mutants import mutants
    from ..roles.agents import BASELINES, BLIND, GUESSES, make_agent

    run = attempt.last_run
    stamps = _stamp_columns(attempt.domain)

    def grade(make: Callable[[Any], Any]) -> Grade:
        return _grade(call_task, attempt.sibling(make), stamps)

    noop = grade(functools.partial(make_agent, "noop"))
    baselines = {}
    ticket_tables: frozenset[str] = frozenset()  # what a ticket ending writes, as the fixed baselines wrote it
    for name in (*BASELINES, *guesses(attempt)):
        if name in GUESSES and run.golden_checked and not _golden_tables(run) <= ticket_tables:
            continue  # the golden path writes records no ticket ending writes, and the task compares end states
        g = grade(functools.partial(make_agent, BLIND + name))
        if name in BASELINES and name != "comply":
            ticket_tables |= g.tables
        baselines[name] = {
            "outcome": _passes(g),
            "differences": g.differences,
            "ok": baseline_ok.get(name),
            "rules": g.rules,
            **({"ending": _guess_of(attempt, name).describe()} if name in GUESSES else {}),
        }
    ids = {table: sorted(rows) for table, rows in run.start_state().items()}
    found = []
    for m in mutants(run.golden, attempt.domain.tools.writes(), ids):
        g = grade(_replaying(m.calls))
        found.append(
            {
                "kind": m.kind,
                "call": m.index + 1,
                "change": m.change,
                "outcome": MUTANT_OUTCOMES[g.outcome],
                "differences": g.differences,
                "rules": g.rules,
            }
        )
    traps = []
    for i, trap in enumerate(run.traps, 1):
        g = grade(_replaying(then=(trap,)))
        outcome = "refused" if g.refused else {EQUIVALENT: "no effect", PASSED: "survived"}.get(g.outcome, g.outcome)
        traps.append(
            {
                "trap": i,
                "call": str(trap),
                "outcome": outcome,
                "detail": g.refused,
                "differences": g.differences,
                "rules": g.rules,
            }
        )
    rules = attempt.domain.rules
    return {
        "golden_passed": True,
        "golden_violations": [v.as_dict() for v in run.golden_violations()],
        "rules": sorted(rules.rules) if rules is not None else None,
        "noop": _passes(noop),
        "noop_differences": noop.differences,
        "noop_rules": noop.rules,
        "baselines": baselines,
        "mutants": found,
        "traps": traps,
        "provenance": [f.as_dict() for f in _provenance(attempt, run)],
        "calls": calls_hash(run.golden),
    }


def _golden_tables(run: Any) -> frozenset[str]:
    """The tables the golden calls change."""
    from ..core.state import diff

    return frozenset(change.table for change in diff(run._before, run._golden_end))


def _guess_of(attempt: Any, name: str) -> Any:
    endings = attempt.domain_endings
    if name == "family":
        return endings.family(attempt.task)
    return endings.ranked(attempt.task)[int(name.removeprefix("rank:")) - 1]


def _guessed(b: dict[str, Any]) -> str:
    return f" (it writes {b['ending']})" if b.get("ending") else ""


def guesses(attempt: Any) -> list[str]:
    """The guessing baselines this task meets: its domain's ranked endings, and its family's (when it has one)."""
    endings = attempt.domain_endings
    if endings is None:
        return []
    found = [f"rank:{n}" for n in range(1, len(endings.ranked(attempt.task)) + 1)]
    return found + (["family"] if endings.family(attempt.task) is not None else [])


def _replaying(calls: Sequence[Call] | None = None, then: Sequence[Call] = ()) -> Callable[[Any], Any]:
    """Builds an agent that replays `calls` (the task's golden calls when None), then `then`."""
    from ..roles.agents.golden import GoldenAgent

    return lambda context: GoldenAgent((*(context.golden if calls is None else calls), *then), context.reply)


def _passes(g: Grade) -> str:
    return "passed" if g.outcome in (EQUIVALENT, PASSED) else "failed"


def _grade(call_task: Callable[[Any], None], variant: Any, stamps: tuple[dict[str, set[str]], set[str]]) -> Grade:
    from ..core.state import compare

    try:
        call_task(variant)
        failed = False
    except Exception:  # a failed check, or a task that breaks under a wrong path: either tells it apart
        failed = True
    finally:
        variant.close()
    run = variant.last_run
    if run is None:  # the task stopped before its episode
        return Grade(CHECKS, [])
    full = [d for d in compare(run._before, run._golden_end, run._after, {}) if not _is_stamp(d, stamps)]
    refused = _last_error(run.messages)
    rules = variant.result.rules_broken
    tables = frozenset(change.table for change in run.effects)
    if failed:
        return Grade(CHECKS, [d.explain() for d in run.differences], refused, rules, tables)
    if not full:  # a stamp of the domain clock alone records that a change was made, not what it was
        return Grade(EQUIVALENT, [], refused, rules, tables)
    graded = [d for d in run.differences if not _is_stamp(d, stamps)]
    if run.golden_checked and graded:
        return Grade(STATE, [d.explain() for d in graded], refused, rules, tables)
    return Grade(PASSED, [d.explain() for d in full], refused, rules, tables)


def _last_error(messages: list[dict[str, Any]]) -> str | None:
    last = next((m for m in reversed(messages) if m["role"] == "tool"), None)
    return f"{last['error']}: {last['content']}" if last is not None and last.get("error") else None


def _stamp_columns(domain: Any) -> tuple[dict[str, set[str]], set[str]]:
    """Per table, its date-time columns; and the domain clock's moment in the forms snapshots hold."""
    from sqlalchemy import DateTime

    columns = {
        str(t.name): {str(c.name) for c in t.columns if isinstance(c.type, DateTime)}
        for t in domain.metadata.sorted_tables
    }
    now = domain.now.replace(tzinfo=None)
    return columns, {now.isoformat(), now.isoformat(" "), now.isoformat(" ", "microseconds"), str(now)}


def _is_stamp(d: Any, stamps: tuple[dict[str, set[str]], set[str]]) -> bool:
    """A difference in a date-time field that only records when a change was made (a value of the domain clock)."""
    columns, now = stamps
    if d.field is None or d.field not in columns.get(d.table, ()):
        return False
    return any(str(v).replace("+00:00", "") in now for v in (d.expected, d.actual) if v is not None)


def _provenance(attempt: Any, run: Any) -> list[Any]:
    from ..core.provenance import findings
    from ..core.state import diff, volatile_fields

    volatile = volatile_fields(attempt.domain.metadata)
    written = [
        c
        for change in diff(run._before, run._golden_end)
        for c in _volatile_parts(change, volatile.get(change.table, set()))
    ]
    return findings(
        run.golden, run.messages, run.user.knows, attempt.domain.policy_text, attempt.domain.tools.writes(), written
    )


def _volatile_parts(change: Any, volatile: set[str]) -> list[Any]:
    """A change's writes to volatile columns, one per field (an added row gives one per volatile column)."""
    from ..core.state import Change

    if change.kind == "updated":
        return [change] if change.field in volatile else []
    if change.kind == "added":
        return [Change("updated", change.table, change.key, name, None, change.after[name]) for name in volatile]
    return []


def calls_hash(calls: Any) -> str:
    """The identity of a golden call list, for finding duplicate tasks."""
    text = repr([(c.tool, sorted(c.arguments.items(), key=lambda kv: kv[0])) for c in calls])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def note_lines(verdict: dict[str, Any]) -> list[str]:
    """What validation notes without calling a task invalid: caught traps that break no policy rule."""
    if verdict.get("rules") is None:
        return []
    return [
        f"trap {t['trap']}, {t['call']}, is caught by the task's checks but breaks no policy rule"
        for t in verdict.get("traps", ())
        if t["outcome"].startswith("caught") and not t.get("rules")
    ]


def problem_lines(verdict: dict[str, Any]) -> list[str]:
    """What makes a task invalid, one line each."""
    from ..core.rules import Violation

    lines = [
        f"the golden end state breaks policy rule {Violation(**v).explain()}"
        for v in verdict.get("golden_violations", ())
    ]
    if verdict["noop"] == "passed":
        lines.append("the noop agent passes: the task requires nothing to be done, or only a stamp or free text")
    for name, b in verdict.get("baselines", {}).items():
        if b["outcome"] == "passed" and not b["ok"]:
            lines.append(
                f"the policy-blind baseline {name!r} passes{_guessed(b)}: the task cannot tell its fixed ending from "
                f"the policy's (mark it tb_validity(baseline_ok={{{name!r}: reason}}) if that ending is right)"
            )
    for m in verdict["mutants"]:
        if m["outcome"] == "survived":
            missed = "; ".join(" ".join(d.split(None, 1)) for d in m["differences"])
            lines.append(f"surviving mutant, {m['change']}: the checks pass, yet {missed}")
    for t in verdict.get("traps", ()):
        if t["outcome"] == "survived":
            lines.append(f"trap {t['trap']}, {t['call']}, is not caught: the checks pass after it")
        elif t["outcome"] == "refused":
            lines.append(f"trap {t['trap']}, {t['call']}, is refused by the tool ({t['detail']}): it tests nothing")
        elif t["outcome"] == "no effect":
            lines.append(f"trap {t['trap']}, {t['call']}, leaves the golden end state as it is: it tests nothing")
    from ..core.provenance import Finding

    for f in verdict.get("provenance", ()):
        if f["kind"] != "derived":
            lines.append(Finding(**f).explain())
    return lines
