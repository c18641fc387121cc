"""Hypothesis strategies for hostile input: YAML texts, Simulation documents, actions and
Socket.IO payloads.

Values come in two kinds. `Raw(text)` is a YAML token written as is (`.nan`, a 5000-digit
integer, `!!binary ...`), for the text-level suites, where Python could not even hold the
value (`int("9" * 5000)` raises). Plain Python values (`2**63`, `float("nan")`, lone
surrogates) are for the suites that call the engine or send JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.samples import POD

ROOT = Path(__file__).resolve().parents[2]
BUILTIN_TEXTS = {p.stem: p.read_text() for p in sorted((ROOT / "scenarios").glob("*.yaml"))}

SURROGATE_CHARS = ["\ud800", "\udfff", "\udc00", "\ud83d"]
SURROGATES = [*SURROGATE_CHARS, "a\ud83db", "\ude00\ud83d"]
INT64_MAX = 2**63 - 1


@dataclass(frozen=True)
class Raw:
    """A YAML token written into the text as is."""

    text: str


# --- numbers ------------------------------------------------------------------------

# YAML spellings of hostile numbers (PyYAML reads YAML 1.1: `1e300` without a dot is a
# string, `1.0e+400` is inf, `1:30` is 90, `0x..`, `0o..`, `1_000` are integers).
NUMBER_TOKENS = [
    ".nan",
    ".NaN",
    ".inf",
    "-.inf",
    "+.inf",
    "1.0e+400",
    "-1.0e+400",
    "1.0e+300",
    "1.0e+12",
    "1e300",
    "1.0e-300",
    "-1",
    "-0.0",
    "-0.5",
    "0",
    "0.001",
    "0.5",
    "1",
    "3.5",
    "7200",
    "7200.5",
    "7201",
    "86400",
    "2147483647",
    "2147483648",
    "4294967296",
    str(2**53 + 1),
    str(INT64_MAX),
    str(2**63),
    str(2**64),
    str(-(2**63)),
    str(-(2**63) - 1),
    "9" * 300,
    "9" * 400,
    "-" + "9" * 400,
    "9" * 4301,
    "0x7fffffffffffffff",
    "0xffffffffffffffffff",
    "0o777",
    "0b1010",
    "1_000_000",
    "1:30",
    "190:20:30",
    "1000000000",
]
OTHER_TOKENS = [
    "~",
    "null",
    "true",
    "yes",
    "off",
    "''",
    '""',
    "'5'",
    '"5"',
    "[]",
    "{}",
    "[1, 2]",
    "{a: 1}",
    "!!int '5'",
    "!!float '1'",
    "!!str 5",
    "!!binary aGVsbG8=",
    "!!python/object:os.system ls",
    "!!set {a, b}",
    "!custom x",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "&a 1",
    "*a",
    '"\\ud800"',
    '"\\U0001F600"',
    '"\\x00"',
]

python_numbers = st.one_of(
    st.sampled_from(
        [
            0,
            1,
            -1,
            0.5,
            -0.0,
            1e12,
            1e300,
            -1e300,
            1e-300,
            2**31,
            2**31 - 1,
            2**53 + 1,
            INT64_MAX,
            2**63,
            2**64,
            -(2**63) - 1,
            10**300,
            int("9" * 300),
            float("nan"),
            float("inf"),
            float("-inf"),
            7200,
            7200.5,
            86400 * 365,
        ]
    ),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
)

hostile_strings = st.one_of(
    st.sampled_from(
        [
            "",
            " ",
            "app",
            *SURROGATES,
            "\x00",
            "\u202e",
            "💥",
            "中文",
            "a" * 300,
            "{reason}",
            "{0}",
            "%s",
            "__proto__",
            "<script>alert(1)</script>",
            "../../etc/passwd",
            "line\nbreak",
            "nan",
            "Infinity",
        ]
    ),
    st.text(max_size=20),
    st.text(
        alphabet=st.one_of(st.characters(), st.sampled_from(SURROGATE_CHARS)),
        min_size=1,
        max_size=8,
    ),
)


def nested(depth: int) -> Any:
    value: Any = 1
    for i in range(depth):
        value = [value] if i % 2 else {"a": value}
    return value


hostile_json = st.recursive(
    st.one_of(st.none(), st.booleans(), python_numbers, hostile_strings),
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(hostile_strings, children, max_size=3)
    ),
    max_leaves=6,
) | st.sampled_from([nested(40), nested(200), [[]] * 5])


# --- YAML text ----------------------------------------------------------------------

yaml_chars = st.one_of(
    st.sampled_from([*list(":-[]{}#&*!|>'\"%@`,?\n\t "), "  ", "\n  ", "\n- "]),
    st.characters(min_codepoint=32, max_codepoint=126),
    st.characters(),
    st.sampled_from(["\ufeff", "\x00", "\x85", "\u2028", "中", "💥", *SURROGATES]),
)
yaml_soup = st.lists(yaml_chars, max_size=120).map("".join)

POD_KEYS = [
    "apiVersion: v1",
    "kind: Pod",
    "kind: Simulation",
    "apiVersion: playground/v1",
    "metadata:",
    "  name: web",
    "spec:",
    "  containers:",
    "  - name: app",
    "    image: nginx:1.27",
    "  terminationGracePeriodSeconds:",
    "    livenessProbe:",
    "      periodSeconds:",
    "script:",
    "- at:",
    "  action: delete",
    "containers:",
    "  app:",
    "    startSeconds:",
    "---",
    "...",
    "%YAML 1.1",
    "%TAG ! tag:example.com,2000:",
]
token_soup = st.lists(
    st.one_of(
        st.sampled_from(POD_KEYS),
        st.sampled_from(NUMBER_TOKENS + OTHER_TOKENS),
        st.sampled_from([" ", "\n", "\n  ", ": ", "- ", "[", "]", "{", "}", ", "]),
    ),
    max_size=40,
).map("".join)


def _replace_value(lines: list[str], index: int, token: str) -> None:
    line = lines[index]
    key, sep, _ = line.partition(": ")
    lines[index] = f"{key}: {token}" if sep else f"{line} {token}"


@st.composite
def mutated_scenario(draw: st.DrawFn, texts: list[str] | None = None) -> str:
    """A built-in scenario (or the minimal Pod, or one of `texts`) with one to four
    line-level mutations."""
    text = draw(st.sampled_from(texts or [POD, *BUILTIN_TEXTS.values()]))
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            lines = [""]
        i = draw(st.integers(0, len(lines) - 1))
        how = draw(
            st.sampled_from(
                ["value", "value", "value", "insert", "delete", "dup", "indent", "chars", "cut"]
            )
        )
        token = draw(st.sampled_from(NUMBER_TOKENS + OTHER_TOKENS) | hostile_strings)
        if how == "value":
            _replace_value(lines, i, token)
        elif how == "insert":
            indent = " " * draw(st.sampled_from([0, 2, 4, 6]))
            key = draw(
                st.sampled_from(
                    [
                        "terminationGracePeriodSeconds",
                        "activeDeadlineSeconds",
                        "periodSeconds",
                        "initialDelaySeconds",
                        "timeoutSeconds",
                        "failureThreshold",
                        "startSeconds",
                        "exitAfterSeconds",
                        "exitCode",
                        "sigtermSeconds",
                        "memoryMiB",
                        "pullSeconds",
                        "at",
                        "gracePeriodSeconds",
                        "tolerationSeconds",
                        "containerPort",
                    ]
                )
            )
            lines.insert(i, f"{indent}{key}: {token}")
        elif how == "delete":
            del lines[i]
        elif how == "dup":
            lines.insert(i, lines[i])
        elif how == "indent":
            lines[i] = draw(st.sampled_from([" ", "  ", "\t", ""])) + lines[i].lstrip(" ")
        elif how == "chars":
            at = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:at] + draw(yaml_soup) + lines[i][at:]
        else:
            joined = "\n".join(lines)
            cut = draw(st.integers(0, len(joined)))
            lines = joined[:cut].split("\n")
    return "\n".join(lines)


# --- a small YAML flow emitter ------------------------------------------------------


def to_yaml(value: Any) -> str:
    """Flow-style YAML for plain values and `Raw` tokens. Strings are written as JSON
    strings without escaping non-ASCII, so a lone surrogate lands in the text itself."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):
        if value != value:
            return ".nan"
        if value in (float("inf"), float("-inf")):
            return ".inf" if value > 0 else "-.inf"
        text = repr(value)
        if "e" in text and "." not in text.split("e")[0]:
            mantissa, exponent = text.split("e")
            text = f"{mantissa}.0e{exponent}"  # YAML 1.1 floats need a dot
        return text
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{to_yaml(k)}: {to_yaml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(to_yaml(v) for v in value) + "]"
    raise TypeError(type(value))


# --- Simulation documents and Pods ---------------------------------------------------

number_tokens = st.sampled_from(NUMBER_TOKENS).map(Raw)
other_tokens = st.sampled_from(OTHER_TOKENS).map(Raw)


def sometimes_hostile(sane: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly a sane value, often a hostile number, sometimes anything at all."""
    return st.one_of(
        sane, sane, number_tokens, number_tokens, other_tokens, hostile_strings, hostile_json
    )


seconds = sometimes_hostile(st.sampled_from([0, 1, 2, 5, 10.5, 30, 60]))
exit_codes = sometimes_hostile(st.sampled_from([0, 1, 2, 137, 143, 255]))
booleans = sometimes_hostile(st.booleans())
health = sometimes_hostile(st.sampled_from(["healthy", "failing"]))

CONTAINER_NAMES = ["app", "side", "init"]
ACTION_WORDS = ["delete", "set-probe", "crash", "oom", "node-down", "node-up", "apply"]
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {a: '1'}\n"
NODE = (
    "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-9\nstatus:\n  allocatable:\n"
    "    cpu: '4'\n    memory: 8Gi\n    pods: '110'\n"
)
SERVICE = (
    "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n"
    "  ports: [{port: 80}]\n"
)
APPLY_TEXTS = [CONFIG_MAP, NODE, SERVICE, POD, POD.replace("nginx:1.27", "nginx:1.28")]
apply_texts = st.one_of(st.sampled_from(APPLY_TEXTS), hostile_strings, token_soup)


def hostile_keys(names: list[str]) -> st.SearchStrategy[Any]:
    """Mapping keys: mostly known names, else hostile strings or numbers."""
    return st.one_of(st.sampled_from(names), st.sampled_from(names), hostile_strings, number_tokens)


hooks = st.fixed_dictionaries({}, optional={"seconds": seconds, "fails": booleans})
container_entry = st.fixed_dictionaries(
    {},
    optional={
        "startSeconds": seconds,
        "exitAfterSeconds": seconds,
        "exitCode": exit_codes,
        "sigtermSeconds": seconds,
        "sigtermExitCode": exit_codes,
        "ignoreSigterm": booleans,
        "memoryMiB": sometimes_hostile(st.sampled_from([1, 64, 512])),
        "probes": st.fixed_dictionaries(
            {}, optional={"liveness": health, "readiness": health, "startup": health}
        )
        | hostile_json,
        "hooks": st.fixed_dictionaries({}, optional={"postStart": hooks, "preStop": hooks})
        | hostile_json,
    },
)
image_entry = st.fixed_dictionaries(
    {},
    optional={
        "pullSeconds": seconds,
        "sizeMiB": sometimes_hostile(st.sampled_from([1, 50, 1000])),
        "exists": booleans,
    },
)


@st.composite
def script_step(draw: st.DrawFn) -> dict[str, Any]:
    word = draw(sometimes_hostile(st.sampled_from(ACTION_WORDS)))
    step: dict[str, Any] = {
        "at": draw(sometimes_hostile(st.sampled_from([0, 1, 5, 12.5, 20, 45, 90]))),
        "action": word,
    }
    fields = {
        "gracePeriodSeconds": seconds,
        "force": booleans,
        "container": sometimes_hostile(st.sampled_from(CONTAINER_NAMES)),
        "probe": sometimes_hostile(st.sampled_from(["liveness", "readiness", "startup"])),
        "healthy": booleans,
        "exitCode": exit_codes,
        "node": sometimes_hostile(st.sampled_from(["node-1", "node-2", "node-9"])),
        "yaml": apply_texts,
    }
    for name in draw(st.lists(st.sampled_from(sorted(fields)), max_size=3, unique=True)):
        step[name] = draw(fields[name])
    return step


simulation_doc = st.fixed_dictionaries(
    {
        "apiVersion": st.just("playground/v1"),
        "kind": st.just("Simulation"),
        "metadata": st.just({"name": "fuzz"}) | st.fixed_dictionaries({"name": hostile_strings}),
    },
    optional={
        "title": hostile_strings | st.fixed_dictionaries({"en": hostile_strings}),
        "containers": st.dictionaries(hostile_keys(CONTAINER_NAMES), container_entry, max_size=3)
        | hostile_json,
        "images": st.dictionaries(
            hostile_keys(["nginx:1.27", "busybox:1.36"]), image_entry, max_size=2
        )
        | hostile_json,
        "script": st.lists(script_step(), max_size=4),
        "lesson": st.lists(
            st.fixed_dictionaries({"text": hostile_strings}, optional={"at": seconds}),
            max_size=2,
        ),
    },
)

probe = st.fixed_dictionaries(
    {"exec": st.just({"command": ["true"]})},
    optional={
        "periodSeconds": sometimes_hostile(st.sampled_from([1, 5, 10])),
        "initialDelaySeconds": seconds,
        "timeoutSeconds": seconds,
        "failureThreshold": sometimes_hostile(st.sampled_from([1, 3])),
        "successThreshold": sometimes_hostile(st.just(1)),
        "terminationGracePeriodSeconds": seconds,
    },
)


@st.composite
def pod_doc(draw: st.DrawFn) -> dict[str, Any]:
    """A Pod with up to three containers (an init or sidecar one among them), whose
    numeric fields are often hostile."""
    containers: list[dict[str, Any]] = []
    for name in draw(st.lists(st.sampled_from(["app", "side"]), min_size=1, unique=True)):
        container: dict[str, Any] = {"name": name, "image": "nginx:1.27"}
        for field in draw(
            st.lists(
                st.sampled_from(["livenessProbe", "readinessProbe", "startupProbe"]),
                max_size=2,
                unique=True,
            )
        ):
            container[field] = draw(probe)
        if draw(st.booleans()):
            container["lifecycle"] = {"preStop": {"exec": {"command": ["sleep", "1"]}}}
        if draw(st.booleans()):
            container["resources"] = {
                "limits": {
                    "memory": draw(
                        sometimes_hostile(st.sampled_from(["64Mi", "1Gi"]))
                        | st.sampled_from(["1e400Mi", "9" * 400, "-1Mi", "0.5"])
                    )
                }
            }
        containers.append(container)
    spec: dict[str, Any] = {"containers": containers}
    if draw(st.booleans()):
        spec["initContainers"] = [
            {
                "name": "init",
                "image": "busybox:1.36",
                "restartPolicy": draw(st.sampled_from(["Always", "OnFailure", "Never"])),
            }
        ]
    optional = {
        "terminationGracePeriodSeconds": seconds,
        "activeDeadlineSeconds": seconds,
        "restartPolicy": sometimes_hostile(st.sampled_from(["Always", "OnFailure", "Never"])),
        "tolerations": st.just(
            [
                {
                    "key": "node.kubernetes.io/unreachable",
                    "operator": "Exists",
                    "effect": "NoExecute",
                }
            ]
        ).flatmap(
            lambda t: sometimes_hostile(st.just(300)).map(
                lambda s: [{**t[0], "tolerationSeconds": s}]
            )
        ),
    }
    for field in draw(st.lists(st.sampled_from(sorted(optional)), max_size=3, unique=True)):
        spec[field] = draw(optional[field])
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": spec,
    }


@st.composite
def scenario_text(draw: st.DrawFn) -> str:
    """A Pod (hostile numbers inside) and maybe a Simulation document, as flow YAML."""
    pod = draw(st.just(Raw(POD.rstrip("\n"))) | pod_doc())
    documents = [pod if isinstance(pod, Raw) else Raw(to_yaml(pod))]
    if draw(st.integers(0, 4)):
        documents.append(Raw(to_yaml(draw(simulation_doc))))
    return "\n---\n".join(to_yaml(d) for d in documents) + "\n"


# --- live actions (Python values, as JSON would bring them) --------------------------


def py_hostile(sane: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly a sane value, often a hostile number or string, sometimes any JSON value."""
    return st.one_of(
        sane, sane, sane, python_numbers, python_numbers, hostile_strings, hostile_json
    )


ACTION_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "gracePeriodSeconds": py_hostile(st.sampled_from([0, 1, 5, 30])),
    "force": py_hostile(st.booleans()),
    "container": py_hostile(st.sampled_from(["app", "log-shipper", "migrate"])),
    "probe": py_hostile(st.sampled_from(["liveness", "readiness", "startup"])),
    "healthy": py_hostile(st.booleans()),
    "exitCode": py_hostile(st.sampled_from([0, 1, 137, 255])),
    "node": py_hostile(st.sampled_from(["node-1", "node-2", "node-3", "node-9"])),
    "yaml": apply_texts,
}
WORD_FIELDS = {
    "delete": ["gracePeriodSeconds", "force"],
    "set-probe": ["container", "probe", "healthy"],
    "crash": ["container", "exitCode"],
    "oom": ["container"],
    "node-down": ["node"],
    "node-up": ["node"],
    "apply": ["yaml"],
}


@st.composite
def live_action(draw: st.DrawFn) -> Any:
    """An action dict: a word (rarely a wrong one), its own fields with hostile values,
    sometimes a field of another word or a made-up one; rarely not a dict at all."""
    if draw(st.integers(0, 30)) == 0:
        return draw(hostile_json)
    word = draw(st.sampled_from(ACTION_WORDS) | st.sampled_from(ACTION_WORDS) | hostile_json)
    action: dict[str, Any] = {"action": word}
    own = WORD_FIELDS.get(word, []) if isinstance(word, str) else []
    for name in own:
        if draw(st.integers(0, 3)):
            action[name] = draw(ACTION_FIELDS[name])
    for name in draw(st.lists(st.sampled_from(sorted(ACTION_FIELDS)), max_size=1)):
        action[name] = draw(ACTION_FIELDS[name])
    if draw(st.integers(0, 10)) == 0:
        action[draw(hostile_strings)] = draw(hostile_json)
    return action


# Moments an action is tried at: before scheduling, while starting, running, later.
MOMENTS = [0, 3, 20, 60]
# Valid actions that put the Pod somewhere else first: terminating, on a lost node.
BEFORE = [
    [],
    [],
    [{"action": "delete", "gracePeriodSeconds": 30}],
    [{"action": "node-down"}],
    [{"action": "set-probe", "container": "app", "probe": "liveness", "healthy": False}],
]


# --- Socket.IO steps and share bodies (tests/fuzz/socket_harness.py) -----------------

BUILTIN_NAMES = sorted(BUILTIN_TEXTS)
# Scenarios whose runs go quiet once settled: a share link replayed to a huge `at` on
# them costs nothing, so the fuzz suite can try such links without hanging.
QUIET = ["plain-pod", "job-succeeds", "job-fails", "init-containers", "sigterm-ignored"]
SHARE_TEXTS = [POD, *(BUILTIN_TEXTS[name] for name in QUIET)]

# Socket.IO packets a client can write that JSON encoding would never produce.
RAW_PACKETS = [
    '2["act",{"action":"crash","container":"app","exitCode":' + "9" * 5000 + "}]",
    '2["clock",{"op":"seek","value":' + "9" * 5000 + "}]",
    '2["clock",{"op":"seek","value":1e999}]',
    '2["clock",{"op":"speed","value":-1e999}]',
    '2["clock",{"op":"seek","value":NaN}]',
    '2["act",{"action":"delete","gracePeriodSeconds":Infinity}]',
    '2["join",{"yaml":',
    '2["join",{"yaml":"\\ud800"}]',
    '2["join",{"scenario":"\\udfff"}]',
    '2["join",{"share":"\\ud800\\ud800\\ud800\\ud800\\ud800\\ud800\\ud800\\ud800"}]',
    "2" + "[" * 100_000,
    "2" + '["join",' + "[" * 5000 + "]" * 5000 + "]",
    "2[]",
    "2[1]",
    "2{}",
    '2"join"',
    "2[null]",
    '2["join"]',
    '2["join",{},{}]',
    '21["join",{}]',
    '2/other,["join",{}]',
    '2["connect",{}]',
    '2["disconnect",{}]',
    "3",
    "31[]",
    "4",
    "0",
    "0/other,",
    "6",
    "9",
    "",
    '5-["join",{"_placeholder":true,"num":0}]',
]

socket_texts = st.one_of(
    st.sampled_from([POD, *BUILTIN_TEXTS.values()]),
    st.sampled_from([POD, *BUILTIN_TEXTS.values()]),
    mutated_scenario(),
    scenario_text(),
    st.sampled_from(APPLY_TEXTS),
    hostile_strings,
)
lang_values = st.sampled_from(["en", "zh"]) | hostile_json


@st.composite
def with_extras(draw: st.DrawFn, payload: dict[str, Any]) -> dict[str, Any]:
    """The payload, sometimes with a language and sometimes with an unknown field."""
    payload = dict(payload)
    if draw(st.integers(0, 3)) == 0:
        payload["lang"] = draw(lang_values)
    if draw(st.integers(0, 12)) == 0:
        payload[draw(hostile_strings)] = draw(hostile_json)
    return payload


join_payloads = st.one_of(
    st.just({}),
    st.fixed_dictionaries({"yaml": socket_texts}),
    st.fixed_dictionaries({"yaml": socket_texts}),
    st.fixed_dictionaries({"scenario": st.sampled_from(BUILTIN_NAMES)}),
    st.fixed_dictionaries({"scenario": py_hostile(st.sampled_from(BUILTIN_NAMES))}),
    st.fixed_dictionaries({"share": py_hostile(st.just("aaaaaaaaaaaaaaaa"))}),
    st.fixed_dictionaries({"session": py_hostile(st.just("x" * 32))}),
    st.fixed_dictionaries({"yaml": socket_texts, "scenario": st.just("plain-pod")}),
).flatmap(with_extras)

clock_payloads = st.fixed_dictionaries(
    {"op": py_hostile(st.sampled_from(["play", "pause", "step", "speed", "seek"]))},
    optional={"value": py_hostile(st.sampled_from([0, 0.5, 1, 10, 30, 100, 3600, 7200]))},
)


@st.composite
def act_payloads(draw: st.DrawFn) -> Any:
    action = draw(live_action())
    if isinstance(action, dict) and draw(st.integers(0, 10)) == 0:
        action["at"] = draw(python_numbers)
    return action


@st.composite
def timed_actions(draw: st.DrawFn) -> Any:
    action = draw(live_action())
    if isinstance(action, dict):
        action["at"] = draw(py_hostile(st.sampled_from([0, 1, 5, 12, 40])))
    return action


share_bodies = st.one_of(
    st.fixed_dictionaries(
        {"yaml": st.sampled_from(SHARE_TEXTS) | hostile_strings},
        optional={
            "actions": st.lists(timed_actions(), max_size=3) | hostile_json,
            "at": py_hostile(st.sampled_from([0, 5, 30, 100])),
        },
    ),
    st.fixed_dictionaries(
        {"yaml": st.sampled_from(SHARE_TEXTS)},
        optional={"at": st.sampled_from([1e9, 1e12, 1e300, 2**63, 10**300, -1, 0.001])},
    ),
    hostile_json,
    st.sampled_from(
        [
            b'{"yaml": "x", "at": 1e999}',
            b'{"yaml": "x", "at": ' + b"9" * 5000 + b"}",
            b'{"yaml": "\\ud800"}',
            b'{"yaml": ' + b"[" * 50_000,
            b"\xff\xfe\x00",
            b"",
            b"null",
        ]
    ),
)


@st.composite
def event_step(draw: st.DrawFn) -> tuple[Any, ...]:
    event = draw(st.sampled_from(["join", "apply", "clock", "clock", "act", "act", "lang", "?"]))
    payload: Any
    if event == "join":
        payload = draw(join_payloads)
    elif event == "apply":
        payload = draw(with_extras({"yaml": draw(socket_texts)}))
    elif event == "clock":
        payload = draw(clock_payloads)
    elif event == "act":
        payload = draw(act_payloads())
    elif event == "lang":
        payload = draw(with_extras({"lang": draw(lang_values)}))
    else:
        event = draw(
            st.sampled_from(["", "connect", "disconnect", "tick", "snapshot", "error", "hello"])
            | hostile_strings
        )
        payload = draw(hostile_json)
    if draw(st.integers(0, 15)) == 0:
        payload = draw(hostile_json)
    arity = draw(st.sampled_from([1] * 14 + [0, 2]))
    return ("emit", event, [payload] * arity)


step = st.one_of(
    event_step(),
    event_step(),
    event_step(),
    event_step(),
    st.tuples(st.just("tick"), st.sampled_from([0.05, 0.1, 0.5, 2.0, 30.0, 200.0])),
    st.tuples(st.just("tick"), st.sampled_from([0.1, 1.0])),
    st.tuples(st.just("raw"), st.sampled_from(RAW_PACKETS)),
    st.tuples(st.just("share"), share_bodies, st.sampled_from(["en", "zh"])),
    st.just(("rejoin",)),
)


@st.composite
def socket_run(draw: st.DrawFn) -> list[tuple[Any, ...]]:
    """Most runs start by joining something; then one to six more steps."""
    steps: list[tuple[Any, ...]] = []
    if draw(st.integers(0, 4)):
        lang = draw(st.sampled_from([None, "en", "zh"]))
        source = draw(
            st.sampled_from(
                [{}, {"scenario": "liveness-restart"}, {"scenario": "crash-loop-backoff"}]
            )
            | st.fixed_dictionaries({"yaml": socket_texts})
        )
        steps.append(("emit", "join", [{**source, **({"lang": lang} if lang else {})}]))
        if draw(st.booleans()):
            steps.append(("emit", "clock", [{"op": "play"}]))
    steps += draw(st.lists(step, min_size=1, max_size=6))
    return steps
