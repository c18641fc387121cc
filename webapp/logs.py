"""Log output of `pod-playground`: Python's usual text, or one JSON object a line.

    configure_logging("json")   # PLAYGROUND_LOG_FORMAT=json

A JSON line has `ts` (UTC, ISO 8601), `level`, `logger`, `msg`, the record's structured
fields (webapp/metrics.py gives requests `event`, `method`, `route`, `status`,
`duration_ms`, `bytes`, `client`; Socket.IO events `event`, `io_event`, `duration_ms`) and
`exc` (the traceback, as one string) for an error. Requests are logged by their route
(`/s/<link_id>`), never their path or query: share ids and class keys are capabilities
and must not end up in logs. In JSON mode Werkzeug's own request line (which has the
path) is turned off.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

FORMATS = ("text", "json")
# LogRecord attributes that are not structured fields of ours.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                line[key] = (
                    value if isinstance(value, str | int | float | bool | None) else str(value)
                )
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def configure_logging(fmt: str, stream: Any = None) -> logging.Handler | None:
    """JSON: send every log record to `stream` (stderr) as JSON lines; returns the handler.
    Text: nothing changes (Werkzeug prints its request lines, warnings go to stderr)."""
    if fmt not in FORMATS:
        raise ValueError(f"LOG_FORMAT must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if fmt == "text":
        return None
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    # Werkzeug's request lines carry the path (and so share ids): ours replace them.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return handler
