"""The package's layers: each imports only the layers below it, and no module imports itself back.

Every import counts, wherever it is written (module level, inside a function,
under TYPE_CHECKING): a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import pytest_thinkingbox

PACKAGE = Path(pytest_thinkingbox.__file__).parent
NAME = "pytest_thinkingbox"

#: Lowest first. A module may import its own layer and those before it.
LAYERS = ("core", "roles", "attempt", "campaign", "serve", "plugin", "cli")


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join([NAME, *parts])] = path
    return found


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules that `name` imports."""
    is_package = path.name == "__init__.py"
    here = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith(NAME))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith(NAME):
                continue
            found.add(target)
            # `from . import agents` imports a module, not a name
            found.update(f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in known)
    found.discard(name)
    return found & known


def layer(name: str) -> int:
    parts = name.split(".")
    if len(parts) == 1:
        return len(LAYERS)  # the public face sits above everything and nothing imports it
    return LAYERS.index(parts[1])


def graph() -> dict[str, set[str]]:
    found = modules()
    return {name: imports(name, path, set(found)) for name, path in found.items()}


def test_every_module_sits_in_a_layer():
    for name in modules():
        parts = name.split(".")
        assert len(parts) == 1 or parts[1] in LAYERS, f"{name} is outside the layers {LAYERS}"


def test_no_import_from_a_higher_layer():
    upward = [
        f"{name} ({LAYERS[layer(name)] if layer(name) < len(LAYERS) else NAME}) imports {target}"
        for name, targets in graph().items()
        for target in targets
        if layer(target) > layer(name) or target == NAME
    ]
    assert not upward, "imports from a higher layer:\n" + "\n".join(sorted(upward))


def test_no_import_cycle():
    edges = graph()
    cycles, state = [], {}

    def visit(name: str, path: list[str]) -> None:
        state[name] = "open"
        for target in sorted(edges[name]):
            if state.get(target) == "open":
                cycles.append(" -> ".join([*path[path.index(target) :], target]))
            elif target not in state:
                visit(target, [*path, target])
        state[name] = "done"

    for name in sorted(edges):
        if name not in state:
            visit(name, [name])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_the_checks_see_a_cycle_and_an_upward_import(tmp_path, monkeypatch):
    # The walker itself: a core module importing the plugin is caught on both counts.
    fake = tmp_path / NAME
    (fake / "core").mkdir(parents=True)
    (fake / "plugin").mkdir()
    for init in (fake / "__init__.py", fake / "core" / "__init__.py"):
        init.write_text("")
    (fake / "core" / "a.py").write_text("def f():\n    from ..plugin import b\n")
    (fake / "plugin" / "__init__.py").write_text("from . import b\n")
    (fake / "plugin" / "b.py").write_text("from ..core.a import f\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    with pytest.raises(AssertionError, match=r"core\.a \(core\) imports pytest_thinkingbox\.plugin"):
        test_no_import_from_a_higher_layer()
    with pytest.raises(AssertionError, match=r"core\.a -> pytest_thinkingbox\.plugin"):
        test_no_import_cycle()
