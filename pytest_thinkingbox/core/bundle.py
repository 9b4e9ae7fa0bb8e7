"""The bundle hash: which task sources, domain code and policies a run graded.

Computed on the controller from the paths pytest was given, so it is the same
with and without xdist (whose controller collects nothing). Each path is
widened to its outermost package (``domains/retail/test_x.py`` hashes all of
``domains/``, shared components included), then every source, policy and data
file under it is hashed by relative path and content, with the plugin version.
A ``-k`` selection does not change the bundle; an edit to any task or policy does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

__version__ = "0.1.0"

SUFFIXES = {".py", ".md", ".yaml", ".yml", ".json", ".txt", ".sql"}


def bundle_roots(args: Iterable[str], invocation_dir: Path) -> list[Path]:
    """The outermost package directory (or plain directory) of each path argument."""
    roots = set()
    for arg in args:
        path = (invocation_dir / arg.split("::")[0]).resolve()
        if not path.exists():
            continue
        folder = path if path.is_dir() else path.parent
        while (folder.parent / "__init__.py").exists():
            folder = folder.parent
        roots.add(folder)
    return sorted(roots)


def bundle_hash(roots: Iterable[Path]) -> str:
    """sha256 (first 16 hex digits) over the plugin version and every bundled file, by path and content."""
    digest = hashlib.sha256(f"pytest-thinkingbox {__version__}\n".encode())
    for root in roots:
        files = sorted(p for p in root.rglob("*") if p.suffix in SUFFIXES and p.is_file() and _bundled(p, root))
        for path in files:
            digest.update(f"{root.name}/{path.relative_to(root).as_posix()}\n".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def _bundled(path: Path, root: Path) -> bool:
    """Sources only: caches (``__pycache__``, ``.pytest_cache``) and hidden folders change between runs."""
    return not any(part == "__pycache__" or part.startswith(".") for part in path.relative_to(root).parts)
