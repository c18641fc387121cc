"""The `pod-playground` command: serve the playground, or trace a scenario without a browser.

pod-playground [--host 127.0.0.1] [--port 5000] [--workers N --redis URL]
pod-playground trace FILE [--for SECONDS] [--act AT:ACTION[:key=value...]] [--json]
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any


def _serve(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="pod-playground",
        description="Serve the Pod Lifecycle Playground. "
        "`pod-playground trace FILE --help` runs a scenario without a browser.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=5000, help="port (0 picks a free one)")
    parser.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("PLAYGROUND_WORKERS") or 1),
        help="worker processes on the one port (PLAYGROUND_WORKERS; more than 1 needs --redis)",
    )
    parser.add_argument(
        "--redis",
        default=os.environ.get("PLAYGROUND_REDIS_URL") or None,
        metavar="URL",
        help="Redis for the message queue, session records and leases (PLAYGROUND_REDIS_URL)",
    )
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if args.workers > 1 and not args.redis:
        parser.error("--workers N > 1 needs --redis URL (docs/workers.md)")

    from .config import StartupError, load_config
    from .serving import serve

    # gunicorn, embedded (webapp/serving.py): `--workers N` are its workers, `--port 0`
    # reports the port it bound. SIGTERM drains: every session is written and resumes
    # after a restart (docs/workers.md).
    overrides: dict[str, Any] = {"WORKERS": args.workers}
    if args.redis:
        overrides["REDIS_URL"] = args.redis
    try:
        # Settings and the database are checked here, once, before any worker is forked:
        # a wrong one is one line naming it and why, not a traceback from every worker.
        check_startup(load_config(overrides))
        return serve(args.host, args.port, workers=args.workers, overrides=overrides)
    except StartupError as error:
        print(f"pod-playground: {error}", file=sys.stderr, flush=True)
        return 2


def check_startup(config: dict[str, Any]) -> None:
    """What would stop the server from working, said before it starts (StartupError)."""
    from .clients import trusted_proxies
    from .storage import check_writable

    trusted_proxies(config.get("TRUSTED_PROXIES"))
    check_writable(config)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "trace":
        from .trace_cli import main as trace_main

        return trace_main(args[1:])
    return _serve(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
