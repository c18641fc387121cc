"""The terminal in the page: one command line in, what a shell with kubectl prints out.

run_line(session, line, lang) -> Outcome(stdout, stderr, exit_code)

    words.py    the line split into words as bash splits it
    flags.py    kubectl's flag parsing and its error lines
    api.py      the session's Kubernetes API, called in-process
    kubectl.py  kubectl's commands: requests to that API, printed as kubectl prints them

The wire (shared/ARCHITECTURE.md, "Terminal"): `terminal {line}` -> `terminal:output
{line, stdout, stderr, exitCode}` (webapp/realtime/terminal.py). A line that is not kubectl
gets bash's own answer (`bash: ls: command not found`) with a hint in the page's language;
`clear`, `history` and `help` are the page's own.
"""

from __future__ import annotations

import re
from typing import Any

from webapp.terminal.kubectl import Outcome, run
from webapp.terminal.words import ShellError, split_words

__all__ = ["MAX_LINE_BYTES", "Outcome", "run_line"]

MAX_LINE_BYTES = 16 * 1024  # a longer line is refused before it is read (docs/limits.md)

HINTS = {
    "not_kubectl": {
        "en": "This terminal runs kubectl: try `kubectl get pods` (or `help`).",
        "zh": "这个终端运行 kubectl：试试 `kubectl get pods`（或输入 `help`）。",
    },
    "shell_operator": {
        "en": "This terminal runs one kubectl command at a time: pipes, redirections, `;`, `&&` and `$(...)` are not run.",
        "zh": "这个终端一次只运行一条 kubectl 命令：不支持管道、重定向、`;`、`&&` 和 `$(...)`。",
    },
}


def _hint(code: str, lang: str) -> str:
    texts = HINTS[code]
    return texts.get(lang, texts["en"])


# A here-document redirect ending the line (`<<EOF`, `<<'EOF'`, `<<-EOF`): the page sends
# the lines typed after it, up to the delimiter, as the command's stdin.
HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)([A-Za-z_][A-Za-z0-9_.-]*)\2\s*$")


def run_line(session: Any, line: str, lang: str = "en", stdin: str | None = None) -> Outcome:
    """One command line against `session`, as a shell with kubectl on its PATH runs it;
    `stdin`: the here-document the line ends with (None: the line has none)."""
    if stdin is not None:
        here = HEREDOC.search(line)
        if here is None:
            stdin = None  # stdin only comes with a here-document
        else:
            line = line[: here.start()]
    try:
        words = split_words(line)
    except ShellError as error:
        if error.code == "unmatched_quote":
            quote = error.params["quote"]
            return Outcome(stderr=f"bash: unexpected EOF while looking for matching `{quote}'\n",
                           exit_code=2)  # fmt: skip
        return Outcome(stderr=f"bash: {error.params['operator']}: {_hint('shell_operator', lang)}\n",
                       exit_code=2)  # fmt: skip
    if not words:
        return Outcome()
    if words[0] != "kubectl":
        return Outcome(stderr=f"bash: {words[0]}: command not found\n{_hint('not_kubectl', lang)}\n",
                       exit_code=127)  # fmt: skip
    return run(session, words[1:], lang, stdin)
