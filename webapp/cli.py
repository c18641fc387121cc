"""The `pod-playground` command: serve the playground, or trace a scenario without a browser.

pod-playground [--host 127.0.0.1] [--port 5000]
pod-playground trace FILE [--for SECONDS] [--act AT:ACTION[:key=value...]] [--json]
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def make_playground_server(host: str, port: int, app: Any) -> Any:
    """The server `pod-playground` runs `app` with: Werkzeug's threaded server (a thread per
    request, as Flask-SocketIO's threading mode needs; TECH-NOTES §2a), given a thread only
    once a request has arrived, with bounds from the app's config (webapp/server.py)."""
    from .server import PlaygroundServer, ServerLimits

    return PlaygroundServer(host, port, app, ServerLimits.from_config(app.config))


def _serve(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="pod-playground",
        description="Serve the Pod Lifecycle Playground. "
        "`pod-playground trace FILE --help` runs a scenario without a browser.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=5000, help="port (0 picks a free one)")
    args = parser.parse_args(argv)

    from . import create_app

    app = create_app()
    from .logs import configure_logging

    configure_logging(app.config["LOG_FORMAT"])  # PLAYGROUND_LOG_FORMAT=json: JSON lines
    # A Werkzeug server we own (rather than socketio.run) lets --port 0 report the real
    # port, and runs with no terminal, as in CI (TECH-NOTES §2a: threading mode).
    server = make_playground_server(args.host, args.port, app)
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Pod Lifecycle Playground on http://{host}:{server.server_port}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "trace":
        from .trace_cli import main as trace_main

        return trace_main(args[1:])
    return _serve(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
