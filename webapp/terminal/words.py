"""A command line split into words as bash splits it (quotes, backslashes), the one part
of a shell the terminal needs before it reads `kubectl ...`.

split_words("kubectl get pods -l 'app in (web,api)'")
    -> ["kubectl", "get", "pods", "-l", "app in (web,api)"]

An open quote is bash's own error (`bash: unexpected EOF while looking for matching `''`);
pipes, redirections, `;`, `&&`, `$(...)` and globs are not run: the terminal says so
(webapp/terminal/__init__.py) rather than pass them to kubectl as words.
"""

from __future__ import annotations

OPERATORS = ("|", ";", "&", ">", "<", "`", "$(")


class ShellError(Exception):
    """What bash prints for a line it cannot split, as `code` with its parameters."""

    def __init__(self, code: str, **params: str) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


def split_words(line: str) -> list[str]:
    """The words of `line`: unquoted blanks separate; '...' keeps everything; "..." keeps
    everything but a backslash before ", \\, $ or `; an unquoted backslash keeps the next
    character. Shell operators outside quotes raise ShellError("shell_operator")."""
    words: list[str] = []
    word: list[str] = []
    in_word = False
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c in " \t\n":
            if in_word:
                words.append("".join(word))
                word, in_word = [], False
            i += 1
            continue
        if c == "'":
            end = line.find("'", i + 1)
            if end < 0:
                raise ShellError("unmatched_quote", quote="'")
            word.append(line[i + 1 : end])
            in_word, i = True, end + 1
            continue
        if c == '"':
            i += 1
            while True:
                if i >= n:
                    raise ShellError("unmatched_quote", quote='"')
                c = line[i]
                if c == '"':
                    i += 1
                    break
                if c == "\\" and i + 1 < n and line[i + 1] in '"\\$`':
                    word.append(line[i + 1])
                    i += 2
                    continue
                if c == "`" or line.startswith("$(", i):
                    raise ShellError(
                        "shell_operator", operator=line[i : i + (1 if c == "`" else 2)]
                    )
                word.append(c)
                i += 1
            in_word = True
            continue
        if c == "\\":
            if i + 1 < n:
                word.append(line[i + 1])
            in_word, i = True, i + 2
            continue
        if c == "#" and not in_word:  # a comment to the end of the line
            break
        for op in OPERATORS:
            if line.startswith(op, i):
                raise ShellError("shell_operator", operator=op)
        word.append(c)
        in_word = True
        i += 1
    if in_word:
        words.append("".join(word))
    return words
