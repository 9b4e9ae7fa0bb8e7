"""Small pieces every section of the HTML report uses: figures as text, run labels, colours, swatches, legends."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

COLOURS = ("#2563eb", "#d97706", "#059669", "#dc2626", "#7c3aed", "#0891b2", "#be185d", "#4d7c0f")


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


def _usd(value: float | None) -> str:
    if value is None:
        return "–"
    return f"${value:,.0f}" if value >= 100 else f"${value:.2f}" if value >= 1 else f"${value:.3g}"


def _label(run: Mapping[str, Any]) -> str:
    return str(run.get("label") or run.get("id") or "(unknown)")


def _colour(n: int) -> str:
    return COLOURS[(n - 1) % len(COLOURS)]


def _legend(items: Sequence[tuple[str, str]]) -> str:
    """A line of (swatch HTML, text) pairs."""
    return '<p class="legend">' + "".join(f"{swatch}{escape(text)} " for swatch, text in items) + "</p>"


def _swatch(n: int) -> str:
    return f'<span class="swatch" style="background:{_colour(n)}"></span>'
