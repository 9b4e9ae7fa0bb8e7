"""The bundled benchmark proves its own checks: golden always passes, noop always fails.

Runs pytest on `domains/` in a subprocess from the repository root, as a user would.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import FLAKY_CAMPAIGN, run_domains

from pytest_thinkingbox.campaign.records import read_records

ROOT = Path(__file__).resolve().parent.parent
DOMAINS = ["retail", "auto_insurance", "travel", "neobank", "consulting"]


def test_every_task_passes_every_attempt_under_golden_from_identical_starts(golden_campaign):
    done, records, agg, _ = golden_campaign  # -n 2, GOLDEN_CAMPAIGN: 2 attempts a task, validated (tests/conftest.py)
    assert done.returncode == 0, done.stdout[-3000:]
    assert set(agg["domains"]) == set(DOMAINS)
    for name in DOMAINS:
        figures = agg["domains"][name]
        assert figures["tasks"] >= 20, name
        assert figures["pass@1"] == 1.0, name
        assert figures["all_k"] == figures["tasks"], name
    starts, ends = defaultdict(set), defaultdict(set)
    for r in records:
        assert re.fullmatch(r"test_case_[A-Z]{2}\d{3}_\d{3}", r["task"]), r["task"]
        assert r["tool_calls"] > 0
        starts[r["task"]].add(r["start_hash"])
        ends[r["task"]].add(r["end_hash"])
    assert all(len(s) == 1 for s in starts.values()), "start states differ between attempts or workers"
    assert all(len(e) == 1 for e in ends.values()), "golden end states differ between attempts or workers"


def test_flaky_agent_is_unreliable_and_reproducible_twice_and_across_workers(flaky_campaign, tmp_path):
    # The first run is the session's flaky campaign (-n 2, FLAKY_CAMPAIGN), which the report test reads too.
    # The faults are seeded per task and attempt, whatever the domain: running retail again, in one process
    # instead of two workers, shows a second run and another split of attempts giving the same figures.
    again = run_domains(tmp_path, "-n", "0", *FLAKY_CAMPAIGN, name="again", where="domains/retail")[2]
    retail = {t: c for t, c in flaky_campaign.aggregate["per_task"].items() if c["domain"] == "retail"}
    assert len(retail) >= 20
    assert again["per_task"] == retail
    overall = flaky_campaign.aggregate["overall"]
    assert 0.0 < overall["pass@1"] < 1.0
    assert 0.0 < again["overall"]["pass@1"] < 1.0
    assert overall["all_k"] / overall["tasks"] < overall["pass@k"]


def test_the_report_of_a_flaky_campaign_prints_the_tables_and_writes_the_html(flaky_campaign, tmp_path, capsys):
    from pytest_thinkingbox.cli import main

    flaky = flaky_campaign.results  # the session's flaky campaign: 3 attempts a task (tests/conftest.py)
    html = tmp_path / "report.html"
    assert main(["report", str(flaky), "--html", str(html), "--gate", "pass@1>=0.5"]) == 0
    out = capsys.readouterr().out
    for name in [*DOMAINS, "overall"]:
        assert any(line.startswith(name + " ") for line in out.splitlines()), name
    assert f"complete: {len(read_records([flaky])) // 3} tasks x 3 attempts" in out
    assert "failure signatures" in out
    assert "gate pass@1>=0.5" in out
    page = html.read_text()
    assert all(f'id="{part}"' in page for part in ("chart-reliability", "chart-domains", "signatures", "grid-1"))


def test_every_task_passes_its_own_validation(golden_campaign):
    done, records, _, _ = golden_campaign  # validated: noop, baselines, mutants and traps must fail (conftest.py)
    assert done.returncode == 0, done.stdout[-5000:]
    assert "every selected task tells a careful agent from a careless one" in done.stdout
    validated = {r["task"]: r["validation"] for r in records if "validation" in r}
    assert len(validated) == len({r["task"] for r in records}) >= 20 * len(DOMAINS)
    assert all(v["noop"] == "failed" and v["mutants"] and v["exempt"] is None for v in validated.values())
    assert not [m for v in validated.values() for m in v["mutants"] if m["outcome"] == "survived"]
    blind_passes = [(t, b) for t, v in validated.items() for b, o in v["baselines"].items() if o["outcome"] == "passed"]
    assert all(validated[t]["baselines"][b]["ok"] for t, b in blind_passes), "a baseline passes without a reason"
    traps = [trap for v in validated.values() for trap in v["traps"]]
    assert len(traps) >= 50
    assert all(trap["outcome"].startswith("caught") for trap in traps)
    assert not [f for v in validated.values() for f in v["provenance"] if f["kind"] != "derived"]


#: Lists the tasks `pytest domains --co -q -m EXPRESSION` selects, for each expression given, in one process:
#: the domain modules are imported (most of a collection's time) once instead of once per expression.
LIST_SELECTED = """
import contextlib, io, json, sys
import pytest

listings = {}
for expression in sys.argv[1:]:
    with contextlib.redirect_stdout(io.StringIO()) as out:
        pytest.main(["domains", "--co", "-q", "-p", "no:randomly", "-m", expression])
    listings[expression] = out.getvalue()
print(json.dumps(listings))
"""


def test_bundled_tasks_carry_domain_family_and_kind_markers():
    expressions = [
        "retail and refusal",
        "RT003",
        "write or refusal or hold or pending or escalation",
        "auto_insurance or consulting or neobank or retail or travel",
    ]
    done = subprocess.run([sys.executable, "-c", LIST_SELECTED, *expressions], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    listings = json.loads(done.stdout)

    def selected(expression: str) -> list[str]:
        return [line for line in listings[expression].splitlines() if "::test_case_" in line]

    retail_refusals = selected("retail and refusal")
    assert retail_refusals
    assert all(line.startswith("domains/retail/") for line in retail_refusals)
    assert all("test_case_RT003_" in line for line in selected("RT003"))
    everything = selected("write or refusal or hold or pending or escalation")
    assert len(everything) == len(selected("auto_insurance or consulting or neobank or retail or travel"))


def test_travel_takes_and_gives_back_exactly_the_nights_of_a_stay():
    """Travel reads a stay's inventory in one query; each night of the stay, and only those, moves by one room,
    and a night the hotel has not released fails by its date with nothing taken."""
    from datetime import date, timedelta

    from sqlalchemy import func, select

    from domains.travel import DOMAIN
    from domains.travel import tools as travel
    from domains.travel.models import RoomNight, RoomType
    from pytest_thinkingbox import ToolFailure
    from pytest_thinkingbox.core.backends.sqlite import SQLiteBackend

    backend = SQLiteBackend()
    db = backend.restore(backend.build_image(DOMAIN.metadata, DOMAIN.seed))
    try:
        room_type = db.scalars(select(RoomType).order_by(RoomType.id)).first()
        assert room_type is not None
        first = db.scalar(select(func.min(RoomNight.night)).where(RoomNight.room_type_id == room_type.id))
        last = db.scalar(select(func.max(RoomNight.night)).where(RoomNight.room_type_id == room_type.id))
        assert first is not None
        assert last is not None
        days = [first + timedelta(days=i) for i in range(3)]

        def booked_on(night: date) -> int:
            room_night = db.get(RoomNight, (room_type.id, night))
            assert room_night is not None
            return room_night.booked_rooms

        def booked() -> list[int]:
            return [booked_on(night) for night in days]

        before = booked()
        travel._reserve(db, room_type, [days[0], days[2]])  # not contiguous: the night between stays as it was
        assert booked() == [before[0] + 1, before[1], before[2] + 1]
        travel._release(db, room_type.id, [days[0], days[2]])
        travel._release(db, room_type.id, [])
        assert booked() == before

        on_last = booked_on(last)
        with pytest.raises(ToolFailure, match=f"for the night of {last + timedelta(days=1)} yet"):
            travel._reserve(db, room_type, [last, last + timedelta(days=1), last + timedelta(days=2)])
        assert booked_on(last) == on_last
    finally:
        backend.release(db)
        backend.close()


def test_a_device_handed_to_an_employee_names_them_in_the_reply():
    """The reply reads the device's employee through its relationship, which the hand-over sets with the key: a
    device the session loaded unassigned (as a task's arrange step leaves it) names its new holder too."""
    from domains.neobank import DOMAIN
    from domains.neobank import tools as neobank
    from domains.neobank.factories import DeviceFactory, EmployeeFactory
    from pytest_thinkingbox.core.backends.base import bind_session
    from pytest_thinkingbox.core.backends.sqlite import SQLiteBackend

    backend = SQLiteBackend()
    db = backend.restore(backend.build_image(DOMAIN.metadata, DOMAIN.seed))
    try:
        with bind_session(db):
            device, employee = DeviceFactory(), EmployeeFactory()
            db.commit()
            assert device.assigned_to is None  # loaded, unassigned
            reply = neobank.assign_device(db, device.id, employee.id)
        assert (reply["assigned_to_id"], reply["assigned_to_name"]) == (employee.id, employee.name)
    finally:
        backend.release(db)
        backend.close()
