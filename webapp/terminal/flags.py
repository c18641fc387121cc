"""kubectl's command-line parsing (cobra and pflag) for the commands the terminal runs: the
same flags, the same interspersed arguments and `--`, and the same error lines, e.g.

    error: unknown flag: --foo
    See 'kubectl get --help' for usage.

Flag(name, shorthand, kind) where kind is "bool", "string", "int" or "strings" (repeatable).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Flag:
    name: str
    shorthand: str = ""
    kind: str = "string"
    default: Any = None


class UsageError(Exception):
    """A line kubectl refuses before it asks the server: its text and exit code 1."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


# Flags every command has (kubectl's global flags that mean something here).
GLOBAL = (
    Flag("namespace", "n"),
    Flag("request-timeout", kind="string", default="0"),
)


@dataclass
class Parsed:
    args: list[str] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)
    dash: int = -1  # the index in args where `--` was (kubectl's ArgsLenAtDash), -1 if none
    given: set[str] = field(default_factory=set)

    def __getitem__(self, name: str) -> Any:
        return self.values[name]


def _usage(command: str, text: str) -> UsageError:
    return UsageError(f"error: {text}\nSee 'kubectl {command} --help' for usage.\n")


def _parse_bool(command: str, name: str, value: str) -> bool:
    lowered = value
    if lowered in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if lowered in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    raise _usage(command, f'invalid argument "{value}" for "--{name}" flag: strconv.ParseBool: '
                 f'parsing "{value}": invalid syntax')  # fmt: skip


def _set(command: str, parsed: Parsed, flag: Flag, value: str, shown: str) -> None:
    parsed.given.add(flag.name)
    if flag.kind == "bool":
        parsed.values[flag.name] = _parse_bool(command, flag.name, value)
    elif flag.kind == "int":
        try:
            parsed.values[flag.name] = int(value, 0) if value.strip() == value else int("x")
        except ValueError:
            raise _usage(command, f'invalid argument "{value}" for "{shown}" flag: '
                         f'strconv.ParseInt: parsing "{value}": invalid syntax') from None  # fmt: skip
    elif flag.kind == "strings":
        parsed.values.setdefault(flag.name, [])
        parsed.values[flag.name] = [*parsed.values[flag.name], *value.split(",")]
    else:
        parsed.values[flag.name] = value


def parse(command: str, words: list[str], flags: tuple[Flag, ...]) -> Parsed:
    """pflag's parse of `words` (after the command's name) against `flags` + GLOBAL."""
    every = (*flags, *GLOBAL)
    long = {f.name: f for f in every}
    short = {f.shorthand: f for f in every if f.shorthand}
    parsed = Parsed(values={f.name: ([] if f.kind == "strings" else f.default) for f in every})
    if any(f.kind == "bool" and f.default is None for f in every):
        for f in every:
            if f.kind == "bool" and f.default is None:
                parsed.values[f.name] = False
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--":
            parsed.dash = len(parsed.args)
            parsed.args.extend(words[i:])
            break
        if word.startswith("--") and len(word) > 2:
            name, eq, value = word[2:].partition("=")
            flag = long.get(name)
            if flag is None:
                raise _usage(command, f"unknown flag: --{name}")
            if eq:
                _set(command, parsed, flag, value, f"--{name}")
            elif flag.kind == "bool":
                _set(command, parsed, flag, "true", f"--{name}")
            elif i < len(words):
                _set(command, parsed, flag, words[i], f"--{name}")
                i += 1
            else:
                raise _usage(command, f"flag needs an argument: --{name}")
            continue
        if word.startswith("-") and len(word) > 1:
            rest = word[1:]
            while rest:
                letter, rest = rest[0], rest[1:]
                flag = short.get(letter)
                if flag is None:
                    raise _usage(command, f"unknown shorthand flag: '{letter}' in -{letter}{rest}")
                shown = f"-{letter}, --{flag.name}"
                if flag.kind == "bool":
                    if rest.startswith("="):
                        _set(command, parsed, flag, rest[1:], shown)
                        rest = ""
                    else:
                        _set(command, parsed, flag, "true", shown)
                    continue
                if rest:
                    _set(command, parsed, flag, rest[1:] if rest.startswith("=") else rest, shown)
                elif i < len(words):
                    _set(command, parsed, flag, words[i], shown)
                    i += 1
                else:
                    raise _usage(command, f"flag needs an argument: '{letter}' in -{letter}")
                rest = ""
            continue
        parsed.args.append(word)
    return parsed
