"""`thinkingbox serve-model` and `serve-env`: the local scripted model server, and the tasks as an environment."""

from __future__ import annotations

import argparse
import contextlib
import json
from pathlib import Path
from typing import Any

from .arguments import CliError, _whole


def _serve_model_parser(commands: Any) -> None:
    model = commands.add_parser(
        "serve-model",
        help="a local OpenAI-compatible server with scripted replies, to try the model path offline",
        description="Serve /v1/chat/completions, /v1/responses and /v1/models on the loopback interface. An agent "
        "request replays the tool calls that a passed attempt with the same opening message made (from --script), "
        "then closes; a judge request answers yes; a user request says thanks and stops.",
    )
    model.add_argument(
        "--script",
        type=Path,
        action="append",
        default=[],
        metavar="RESULTS.jsonl",
        help="results of a golden run whose calls the agent replays (repeatable)",
    )
    model.add_argument("--port", type=int, default=8000)
    model.add_argument("--latency", type=float, default=0.0, metavar="S", help="seconds to wait before each reply")
    model.add_argument(
        "--sloppy",
        action="append",
        default=[],
        metavar="MODEL=RATE",
        help="make MODEL close early at RATE per turn, to mimic a less reliable model (repeatable)",
    )
    model.add_argument("--seed", type=int, default=0, help="seed of the sloppy models' slips (default: 0)")
    model.set_defaults(run=serve_model_command)


def serve_model_command(args: argparse.Namespace) -> int:
    from ..serve.model_server import ScriptedModelServer, scripts_from_results

    scripts: dict[str, Any] = {}
    for path in args.script:
        scripts.update(scripts_from_results(path))  # a bad file is a ReportError naming its line
    sloppy = {}
    for text in args.sloppy:
        name, _, rate = text.rpartition("=")
        try:
            sloppy[name] = float(rate)
        except ValueError:
            raise CliError(f"--sloppy {text!r}: expected MODEL=RATE, e.g. small=0.1") from None
    server = ScriptedModelServer(scripts, latency_s=args.latency, sloppy=sloppy, seed=args.seed, port=args.port)
    print(f"serving a scripted model ({len(scripts)} scripted conversations) on {server.base_url} (Ctrl-C stops)")
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


def _serve_env_parser(commands: Any) -> None:
    env = commands.add_parser(
        "serve-env",
        help="serve the tasks as an OpenEnv environment (HTTP /reset, /step, /state and a WebSocket at /ws)",
        description="Serve the tasks under ROOT episode by episode: reset picks a task, each step is one agent "
        "step, and the last step returns the task's 0/1 reward. openenv-core's GenericEnvClient connects to it.",
    )
    env.add_argument(
        "--root",
        type=Path,
        default=None,
        help="folder of the task packages (default: ./domains, else the bundled domains installed with the plugin)",
    )
    env.add_argument("--tasks", type=Path, help="serve only the tasks a pool file selects (select-pool --out)")
    env.add_argument("--host", default="127.0.0.1")
    env.add_argument("--port", type=int, default=8000)
    env.add_argument(
        "--max-episodes", type=_whole, default=256, help="live episodes at once; a reset beyond gets 503 (default: 256)"
    )
    env.add_argument(
        "--idle-timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="end and free an episode whose client sends nothing this long (default: 300)",
    )
    env.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed of the random task choice of a reset that names no task and gives no seed (default: unseeded)",
    )
    env.add_argument(
        "--max-body",
        type=_whole,
        default=1 << 20,
        metavar="BYTES",
        help="largest request body or WebSocket message read; a larger one gets 413 (default: 1048576, 1 MiB)",
    )
    env.set_defaults(run=serve_env_command)


def serve_env_command(args: argparse.Namespace) -> int:
    from ..core.catalog import bundled_root
    from ..serve.env_http import HttpServer
    from ..serve.env_server import EnvServer

    tasks = None
    if args.tasks:
        try:
            tasks = list(json.loads(args.tasks.read_text(encoding="utf-8"))["selected"])
        except OSError as exc:
            raise CliError(f"{args.tasks}: cannot read it ({exc.strerror})") from None
        except (ValueError, KeyError, TypeError):
            raise CliError(f'{args.tasks}: expected JSON with a "selected" list of task ids') from None
    root = args.root or bundled_root()
    env = EnvServer(
        root.resolve(), tasks, max_episodes=args.max_episodes, idle_timeout_s=args.idle_timeout, seed=args.seed
    )
    if not env.tasks:
        raise CliError(f"no tasks (test_case_... functions) under {root}")
    try:
        http = HttpServer(env, args.host, args.port, max_body=args.max_body)
    except OSError as exc:
        raise CliError(f"cannot listen on {args.host}:{args.port}: {exc.strerror}") from None
    print(f"serving {len(env.tasks)} tasks on http://{args.host}:{http.server_port} (Ctrl-C stops)")
    with contextlib.suppress(KeyboardInterrupt):
        http.serve_forever()
    return 0
