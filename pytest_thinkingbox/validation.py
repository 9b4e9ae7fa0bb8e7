"""--tb-validate: prove that every selected task's checks can tell right from wrong.

Each task runs as usual under the golden agent, k times (3 unless --tb-repeat
says otherwise): every attempt must pass, with one end state across attempts
and workers (the controller checks that from the records). On its first
attempt the task function is then called again, on a fresh backend each time,
under the noop agent (it must fail) and under every single-step mutant of its
golden calls (`mutants.py`). A mutant whose end state equals the golden one,
volatile fields aside, is equivalent and set aside; any other must make the
task fail. The first attempt fails, naming each surviving mutant and the
difference the checks missed, unless the task is marked
``@pytest.mark.tb_validity(reason)``, which the report lists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


def _reason_signature(reason: str) -> str:
    return reason


class Validation:
    """Registered when --tb-validate is given, on every process that runs tasks."""

    @pytest.hookimpl(wrapper=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> Any:
        __tracebackhide__ = True
        result = yield
        attempt: Any = pyfuncitem.funcargs.get("tb")
        if attempt is None or attempt.attempt != 1 or attempt.last_run is None:
            return result
        marker = pyfuncitem.get_closest_marker("tb_validity")
        exempt = _reason_signature(*marker.args, **marker.kwargs) if marker else None
        argnames = pyfuncitem._fixtureinfo.argnames
        funcargs = {name: pyfuncitem.funcargs[name] for name in argnames}

        def call_task(tb: Any) -> None:
            pyfuncitem.obj(**{**funcargs, "tb": tb})

        verdict = check(call_task, attempt)
        verdict["exempt"] = exempt
        attempt.record["validation"] = verdict
        problems = problem_lines(verdict)
        if problems and exempt is None:
            raise AssertionError(
                "the task's checks cannot tell right from wrong:\n  "
                + "\n  ".join(problems)
                + "\n(add the missing assertion, declare a truly irrelevant field volatile, or mark the task "
                "@pytest.mark.tb_validity(reason))"
            )
        return result


def check(call_task: Callable[[Any], None], attempt: Any) -> dict[str, Any]:
    """Run the task under noop and under every mutant of its golden calls; classify each."""
    from .agents import make_agent
    from .agents.golden import GoldenAgent
    from .mutants import mutants

    run = attempt.last_run
    ids = {table: sorted(rows) for table, rows in run._before.items()}
    noop, _ = _outcome(call_task, attempt.sibling(lambda context: make_agent("noop", context)))
    noop = "failed" if noop == "killed" else "passed"
    found = []
    for m in mutants(run.golden, attempt.domain.tools.writes(), ids):
        outcome, differences = _outcome(
            call_task, attempt.sibling(lambda context, m=m: GoldenAgent(m.calls, context.reply))
        )
        found.append(
            {"kind": m.kind, "call": m.index + 1, "change": m.change, "outcome": outcome, "differences": differences}
        )
    return {"noop": noop, "mutants": found}


def _outcome(call_task: Callable[[Any], None], variant: Any) -> tuple[str, list[str]]:
    """How the task ends for one variant: equivalent, killed or survived (noop: failed or passed)."""
    try:
        call_task(variant)
        failed = False
    except Exception:  # a failed check, or a task that breaks under a wrong path: either tells it apart
        failed = True
    finally:
        variant.close()
    run = variant.last_run
    differences = [d.explain() for d in run.differences] if run is not None else []
    if run is not None and not differences:
        return "equivalent", []
    return ("killed" if failed else "survived"), differences


def problem_lines(verdict: dict[str, Any]) -> list[str]:
    """What makes a task invalid: a noop pass, or a mutant that survives."""
    lines = []
    if verdict["noop"] == "passed":
        lines.append("the noop agent passes: the task requires nothing to be done")
    for m in verdict["mutants"]:
        if m["outcome"] == "survived":
            missed = "; ".join(" ".join(d.split(None, 1)) for d in m["differences"])
            lines.append(f"surviving mutant, {m['change']}: the checks pass, yet {missed}")
    return lines
