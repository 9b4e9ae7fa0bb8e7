"""Model configuration: which endpoint and model serve the agent, the user and the judge.

A YAML file (``--tb-config``) has an optional ``endpoint`` section of shared
defaults, one section per role (``agent``, ``user``, ``judge``) and optional
``prices``::

    endpoint: {base_url: http://127.0.0.1:8000/v1, api_key_env: null}
    agent: {model: my-model, api: chat, temperature: 0}
    prices: {my-model: {input: 0.5, cached_input: 0.25, output: 1.5}}
    cache: {dir: .model-cache, mode: readwrite, max_age: 7d}

The optional ``cache`` section keeps every role's model answers on disk
(`cache.py`); its ``dir`` is relative to the file's folder; ``--tb-cache``,
``--tb-cache-mode`` and ``--tb-cache-max-age`` win over it.
A role left out keeps its offline default. The command-line shortcuts
``--tb-agent openai:MODEL`` (and the same for ``--tb-user`` and ``--tb-judge``)
with ``--tb-base-url`` build the same objects without a file. Every mistake is a
`ValueError` whose message names the file and the field, so the plugin can turn
it into a usage error before any task runs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .cache import CacheSettings, parse_age, parse_mode

ROLES = ("agent", "user", "judge")
PREFIX = "openai:"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
APIS = ("chat", "responses")


@dataclass(frozen=True)
class ModelConfig:
    """How one role reaches its model. `api_key_env` None means the endpoint needs no key."""

    model: str
    base_url: str | None = None  # None: the openai client's default (api.openai.com)
    api_key_env: str | None = DEFAULT_KEY_ENV
    api: str = "chat"
    temperature: float | None = None  # the judge's default is 0 (ROLE_DEFAULTS)
    top_p: float | None = None
    seed: int | None = None  # sent with chat requests, for providers that sample reproducibly with one
    max_output_tokens: int | None = None
    timeout_s: float = 60.0  # the longest one request may take, its whole answer read
    first_byte_s: float = 20.0  # the longest a request waits for its answer to begin: longer means hung
    max_retries: int = 4
    breaker_failures: int = 5  # consecutive failed requests that mark the endpoint down
    breaker_cooldown_s: float = 30.0  # how long a down endpoint is not called before one request tries it again
    requests_per_minute: float | None = None  # the endpoint's limits, shared by every worker (None: none)
    tokens_per_minute: float | None = None
    extra_body: dict[str, Any] = field(default_factory=dict)
    cache: CacheSettings | None = None  # where the role's answers are kept (the config's cache section); not a field

    def api_key(self) -> str:
        """The key from the environment; endpoints without keys get a placeholder the client accepts."""
        if self.api_key_env is None:
            return "unused"
        return os.environ.get(self.api_key_env, "")

    def public(self) -> dict[str, Any]:
        """What a results manifest may record (no key, only the name of its variable): the model, where it is
        served, and how it samples, so two runs that differ in any of these have different fingerprints."""
        sampling = {"temperature": self.temperature, "top_p": self.top_p, "seed": self.seed}
        return {
            "model": self.model,
            "base_url": self.base_url,
            "api": self.api,
            "api_key_env": self.api_key_env,
            **{name: value for name, value in sampling.items() if value is not None},
            **({"max_output_tokens": self.max_output_tokens} if self.max_output_tokens is not None else {}),
        }


#: What a role's model samples with unless its configuration says otherwise: a judge answers deterministically.
ROLE_DEFAULTS: dict[str, dict[str, Any]] = {"judge": {"temperature": 0.0}}

#: The version of each role's prompt or offline logic, by the role's kind; a run's manifest records the ones it
#: used, so its fingerprint tells apart runs whose prompts differ. Bump a version when its prompt changes.
PROMPT_VERSIONS: dict[str, dict[str, str]] = {
    "agent": {"openai": "agent-1"},
    "user": {"openai": "user-2", "scripted": "scripted-2"},
    "judge": {"openai": "judge-2", "phrases": "phrases-1"},
}


def prompt_version(role: str, name: str) -> str | None:
    """The version of the prompt (or offline logic) that plays `role` under the name records give it; None for
    a part with neither (an offline agent, whose name says all)."""
    kind = "openai" if name.startswith(PREFIX) else name
    return PROMPT_VERSIONS.get(role, {}).get(kind)


@dataclass(frozen=True)
class Config:
    """The model roles in use and the prices per model (USD per million tokens)."""

    roles: dict[str, ModelConfig] = field(default_factory=dict)
    prices: dict[str, dict[str, float]] = field(default_factory=dict)
    source: str = "command line"
    cache: CacheSettings | None = None  # the model cache every role uses (None: none)


_FIELDS = {f.name for f in fields(ModelConfig)} - {"cache"}
_CACHE_KEYS = ("dir", "mode", "max_age")
_PRICE_KEYS = {"input", "cached_input", "output"}


def load_config(path: str | Path) -> Config:
    """Read and check a YAML model configuration."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    except OSError as exc:
        raise ValueError(f"{path}: cannot read it ({exc.strerror})") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: not valid YAML ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping with agent, user, judge, endpoint or prices sections")
    unknown = set(data) - {*ROLES, "endpoint", "prices", "cache"}
    if unknown:
        raise ValueError(
            f"{path}: unknown section {sorted(unknown)[0]!r}; sections are endpoint, agent, user, judge, prices, cache"
        )
    shared = _section(path, "endpoint", data.get("endpoint") or {}, needs_model=False)
    roles = {}
    for role in ROLES:
        if data.get(role) is not None:
            roles[role] = _model_config(path, role, {**shared, **_section(path, role, data[role])})
    cache = _cache_section(path, data["cache"]) if data.get("cache") is not None else None
    config = Config(roles, parse_prices(data.get("prices") or {}, f"{path}: prices"), source=str(path))
    return with_cache(config, cache)


def _cache_section(path: str | Path, raw: Any) -> CacheSettings:
    """The ``cache`` section: ``dir`` (relative to the file's folder), ``mode`` and ``max_age``."""
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: section 'cache' must be a mapping of {', '.join(_CACHE_KEYS)}")
    unknown = set(raw) - set(_CACHE_KEYS)
    if unknown:
        raise ValueError(f"{path}: unknown field cache.{sorted(unknown)[0]}; fields are {', '.join(_CACHE_KEYS)}")
    where = raw.get("dir")
    if not isinstance(where, str) or not where.strip():
        raise ValueError(f"{path}: cache.dir is missing; name the folder that keeps the model answers")
    try:
        mode = parse_mode(raw.get("mode", "readwrite"))
    except ValueError as exc:
        raise ValueError(f"{path}: cache.mode: {exc}") from None
    try:
        age = parse_age(raw["max_age"]) if raw.get("max_age") is not None else None
    except ValueError as exc:
        raise ValueError(f"{path}: cache.max_age: {exc}") from None
    return CacheSettings(str(Path(path).parent / where), mode, age)


def with_cache(config: Config, cache: CacheSettings | None) -> Config:
    """`config` with `cache` as every role's model cache (None: none)."""
    roles = {role: replace(c, cache=cache) for role, c in config.roles.items()}
    return replace(config, roles=roles, cache=cache)


def _section(path: str | Path, name: str, raw: Any, needs_model: bool = True) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: section {name!r} must be a mapping of fields")
    for key in raw:
        if key not in _FIELDS:
            raise ValueError(f"{path}: unknown field {name}.{key}; fields are {', '.join(sorted(_FIELDS))}")
    if needs_model is False and "model" in raw:
        raise ValueError(f"{path}: endpoint.model is not shared; give each role its own model")
    return dict(raw)


def _model_config(path: str | Path, role: str, raw: dict[str, Any]) -> ModelConfig:
    if not isinstance(raw.get("model"), str) or not raw["model"]:
        raise ValueError(f"{path}: {role}.model is missing; name the model this role uses")
    if raw.get("api", "chat") not in APIS:
        raise ValueError(f"{path}: {role}.api is {raw['api']!r}; choose chat or responses")
    if not isinstance(raw.get("extra_body", {}), dict):
        raise ValueError(f"{path}: {role}.extra_body must be a mapping")
    try:
        config = ModelConfig(**{**ROLE_DEFAULTS.get(role, {}), **raw})
        for name in (
            "temperature",
            "top_p",
            "max_output_tokens",
            "timeout_s",
            "first_byte_s",
            "max_retries",
            "breaker_cooldown_s",
        ):
            value = getattr(config, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
                raise TypeError(f"{role}.{name} must be a number of at least 0, got {value!r}")
        for name in ("max_output_tokens", "max_retries", "breaker_failures", "seed"):
            value = getattr(config, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                raise TypeError(f"{role}.{name} must be a whole number, got {value!r}")
        if config.breaker_failures < 1:
            raise TypeError(f"{role}.breaker_failures must be at least 1, got {config.breaker_failures!r}")
        for name in ("requests_per_minute", "tokens_per_minute"):
            value = getattr(config, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
                raise TypeError(f"{role}.{name} must be a number above 0, got {value!r}")
        for name in ("base_url", "api_key_env"):
            value = getattr(config, name)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise TypeError(f"{role}.{name} must be text (e.g. http://127.0.0.1:8000/v1), got {value!r}")
    except TypeError as exc:
        raise ValueError(f"{path}: {exc}") from None
    return config


def parse_prices(data: Any, source: str) -> dict[str, dict[str, float]]:
    """``{MODEL: {input, cached_input, output}}`` in USD per 1M tokens, checked; ``cached_input`` defaults
    to ``input``. The config's ``prices`` section, a run manifest's and a ``--prices`` file share this format."""
    if not isinstance(data, dict):
        raise ValueError(
            f"{source}: prices should map each model to {{input, cached_input, output}} in USD per 1M tokens"
        )
    table = {}
    for model, entry in data.items():
        if not isinstance(entry, dict) or "input" not in entry or "output" not in entry:
            raise ValueError(f"{source}: model {model!r} needs input and output prices (USD per 1M tokens)")
        unknown = set(entry) - _PRICE_KEYS
        if unknown:
            raise ValueError(
                f"{source}: model {model!r} has unknown price fields {', '.join(sorted(map(str, unknown)))}"
            )
        row = {
            "input": entry["input"],
            "cached_input": entry.get("cached_input", entry["input"]),
            "output": entry["output"],
        }
        for name, value in row.items():
            if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{source}: model {model!r}: {name} should be a number >= 0, got {value!r}")
        table[str(model)] = {name: float(value) for name, value in row.items()}
    return table


def with_shortcuts(config: Config, names: dict[str, str | None], base_url: str | None) -> Config:
    """Apply the command line (``--tb-<role> NAME``, ``--tb-base-url``) on top of a file's configuration."""
    roles = dict(config.roles)
    for role, name in names.items():
        if name and not name.startswith(PREFIX):
            roles.pop(role, None)  # an offline name on the command line wins over the file
        elif name:
            model = name[len(PREFIX) :]
            if not model:
                raise ValueError(f"--tb-{role} {name!r} names no model; write openai:MODEL")
            fresh = ModelConfig(model=model, cache=config.cache, **ROLE_DEFAULTS.get(role, {}))
            roles[role] = replace(roles[role], model=model) if role in roles else fresh
    if base_url:
        roles = {role: replace(c, base_url=base_url) for role, c in roles.items()}
    return replace(config, roles=roles)


def role_name(config: Config, role: str, offline: str) -> str:
    """How records name a role: ``openai:MODEL`` when a model serves it, else the offline name."""
    return f"{PREFIX}{config.roles[role].model}" if role in config.roles else offline


def missing_keys(config: Config) -> list[str]:
    """Lines naming each role whose key variable is unset."""
    return [
        f"{role}: the environment variable {c.api_key_env} holding the API key is not set"
        for role, c in config.roles.items()
        if c.api_key_env is not None and not os.environ.get(c.api_key_env)
    ]


def check_reachable(config: Config, timeout_s: float = 5.0) -> None:
    """Ask each distinct endpoint for its model list; raise ValueError naming the one that does not answer.

    An endpoint that answers with an error status is reachable: some servers do
    not implement /models. A refused key (401 or 403) is reported, since every
    request would fail the same way.
    """
    import openai

    seen = set()
    for role, c in config.roles.items():
        if (c.base_url, c.api_key_env) in seen:
            continue
        seen.add((c.base_url, c.api_key_env))
        client = openai.OpenAI(base_url=c.base_url, api_key=c.api_key(), timeout=timeout_s, max_retries=0)
        try:
            client.models.list()
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise ValueError(
                f"{role}: {c.base_url or 'the OpenAI API'} refused the key in {c.api_key_env}: {exc}"
            ) from None
        except openai.APIStatusError:
            pass
        except openai.APIConnectionError as exc:
            raise ValueError(
                f"{role}: cannot reach {c.base_url or 'the OpenAI API'} ({exc}); is the server up?"
            ) from None
        finally:
            client.close()
