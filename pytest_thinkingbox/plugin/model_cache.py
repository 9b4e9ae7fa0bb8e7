"""The model cache: --tb-cache DIR, --tb-cache-mode and --tb-cache-max-age (or ``cache:`` in --tb-config).

Every model-served role (agent, user, judge) reads its answers from the cache
folder when the very same request was answered before in the same attempt, and
keeps the new ones (`roles/cache.py`); a campaign run again with the cache
makes no request. Checked at configure: a folder that cannot be used is a usage
error naming it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from .options import group, setting
from .roles import MODELS


def _checked(option: str, parse_name: str) -> Callable[[str], object]:
    def parse(text: str) -> object:
        from ..roles import cache

        try:
            return getattr(cache, parse_name)(text)
        except ValueError as exc:
            raise pytest.UsageError(f"{option}: {exc}") from None

    return parse


def pytest_addoption(parser: pytest.Parser) -> None:
    options = group(parser)
    options.addoption(
        "--tb-cache",
        dest="tb_cache",
        metavar="DIR",
        help="Keep model answers (agent, user, judge) in DIR, keyed by the exact request and attempt, and answer "
        "from it when the same request comes again. Default: ini tb_cache, else the --tb-config cache section, "
        "else none.",
    )
    options.addoption(
        "--tb-cache-mode",
        dest="tb_cache_mode",
        metavar="MODE",
        type=_checked("--tb-cache-mode", "parse_mode"),
        help="readwrite (answer from the cache, keep new answers), read (keep nothing new), write (never answer "
        "from it: a refresh) or off. Default: ini tb_cache_mode, else the config's, else readwrite.",
    )
    options.addoption(
        "--tb-cache-max-age",
        dest="tb_cache_max_age",
        metavar="AGE",
        type=_checked("--tb-cache-max-age", "parse_age"),
        help="Answers kept longer than AGE (3600, 90m, 12h, 7d) count as absent. Default: ini tb_cache_max_age, "
        "else the config's, else no limit.",
    )
    parser.addini("tb_cache", "Default model cache folder (see --tb-cache).", default="")
    parser.addini("tb_cache_mode", "Default model cache mode (see --tb-cache-mode).", default="")
    parser.addini("tb_cache_max_age", "Default age after which kept answers expire (see --tb-cache-max-age).")


def pytest_configure(config: pytest.Config) -> None:
    """Give every model role the cache the options (or the config file) name, checked before any task runs."""
    from ..roles.cache import CacheSettings, check_settings, parse_age, parse_mode
    from ..roles.config import with_cache

    models = config.stash.get(MODELS, None)
    if models is None:
        return
    where = setting(config, "tb_cache")
    mode: str | None = config.getoption("tb_cache_mode") or _ini(config, "tb_cache_mode", parse_mode)
    age: float | None = config.getoption("tb_cache_max_age") or _ini(config, "tb_cache_max_age", parse_age)
    settings = models.cache
    if where:
        settings = replace(models.cache or CacheSettings(""), dir=str(config.invocation_params.dir / where))
    if settings is None:
        if mode or age:
            option = "--tb-cache-mode" if mode else "--tb-cache-max-age"
            raise pytest.UsageError(f"{option} needs a cache folder: give --tb-cache DIR (or cache: in --tb-config)")
        return
    settings = replace(settings, mode=mode or settings.mode, max_age_s=age or settings.max_age_s)
    named = "--tb-cache" if where else f"--tb-config {models.source}: cache.dir"
    try:
        check_settings(settings)
    except ValueError as exc:
        raise pytest.UsageError(f"{named}: {exc}") from None
    config.stash[MODELS] = with_cache(models, None if settings.mode == "off" else settings)


def _ini(config: pytest.Config, name: str, parse: Callable[[str], Any]) -> Any:
    text = config.getini(name)
    if not text:
        return None
    try:
        return parse(text)
    except ValueError as exc:
        raise pytest.UsageError(f"{name} (ini): {exc}") from None
