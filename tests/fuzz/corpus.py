"""Every failing input the fuzz suite (or the issue's audit) found, kept as a regression
case. Each case's id starts with its entry in /work/wt/FINDINGS.md (E = engine/manifest,
S = server). The tests run them through the same oracles as the generated inputs.

Python literals, not JSON: these inputs include lone surrogates, integers of thousands of
digits and NaN, which a JSON corpus could not hold faithfully.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.samples import POD


@dataclass(frozen=True)
class Case:
    id: str
    value: Any


def ids(case: Case) -> str:
    return case.id


def simulation(body: str, pod: str = POD) -> str:
    """The Pod followed by a Simulation document with `body` (top-level fields)."""
    return pod + "---\napiVersion: playground/v1\nkind: Simulation\nmetadata: {name: s}\n" + body


def grace_pod(grace: str) -> str:
    """The Pod with terminationGracePeriodSeconds `grace`, deleted at 5 s."""
    return simulation(
        "script:\n- {at: 5, action: delete}\n",
        POD + f"  terminationGracePeriodSeconds: {grace}\n",
    )


# --- (a) YAML text ---------------------------------------------------------------------

SCENARIO_TEXTS = [
    Case("E1-lone-surrogate-in-text", POD.replace("nginx:1.27", "nginx\ud800")),
    Case("E1-lone-surrogate-in-key", POD.replace("image:", "im\udfffage:")),
    Case("E2-int-over-4300-digits", POD + "  terminationGracePeriodSeconds: " + "9" * 5000 + "\n"),
    Case(
        "E2-int-over-4300-digits-sim",
        simulation("containers:\n  app: {exitCode: " + "9" * 4301 + "}\n"),
    ),
    Case("E2-explicit-int-tag-on-text", POD.replace("nginx:1.27", "!!int abc")),
    Case("E2-explicit-float-tag-on-text", POD.replace("nginx:1.27", "!!float abc")),
    Case("E2-explicit-bool-tag-on-text", POD.replace("nginx:1.27", "!!bool maybe")),
    Case("E2-explicit-int-tag-on-decimal", POD + "  terminationGracePeriodSeconds: !!int 1.5\n"),
    Case("E10-line-break-NEL", "\x85 \x8500"),
    Case("E10-line-break-LS", "\u2028[x\u2028D"),
]

OBJECT_TEXTS = [
    Case(
        "E1-lone-surrogate-configmap",
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: "\ud800"}\n',
    ),
    Case(
        "E2-int-over-4300-digits-objects",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: " + "1" * 4400 + "}\n",
    ),
]

# --- (b) Simulation documents and Pod numbers -----------------------------------------

SIMULATION_TEXTS = [
    Case(
        "E3-400-digit-startSeconds",
        simulation("containers:\n  app: {startSeconds: " + "9" * 400 + "}\n"),
    ),
    Case(
        "E4-300-digit-exitCode",
        simulation("containers:\n  app: {exitAfterSeconds: 5, exitCode: " + "9" * 300 + "}\n"),
    ),
    Case(
        "E4-300-digit-sigtermExitCode",
        simulation(
            "containers:\n  app: {sigtermExitCode: "
            + "9" * 300
            + "}\nscript:\n- {at: 5, action: delete}\n"
        ),
    ),
    Case("E5-script-at-nan", simulation("script:\n- {at: .nan, action: delete}\n")),
    Case("E5-script-at-inf", simulation("script:\n- {at: .inf, action: delete}\n")),
    Case("E5-pullSeconds-inf", simulation("images:\n  nginx:1.27: {pullSeconds: .inf}\n")),
    Case("E5-pullSeconds-nan", simulation("images:\n  nginx:1.27: {pullSeconds: .nan}\n")),
    Case(
        "E5-sigtermSeconds-inf",
        simulation(
            "containers:\n  app: {sigtermSeconds: .inf}\nscript:\n- {at: 5, action: delete}\n"
        ),
    ),
    Case("E5-startSeconds-nan", simulation("containers:\n  app: {startSeconds: .nan}\n")),
    Case("E6-grace-1e12-then-delete", grace_pod("1000000000000")),
    Case("E6-grace-int64-max-then-delete", grace_pod(str(2**63 - 1))),
    Case(
        "E8-memory-limit-inf",
        POD.replace(
            "    image: nginx:1.27",
            "    image: nginx:1.27\n    resources: {limits: {memory: .inf}}",
        ),
    ),
    Case(
        "E8-memory-limit-nan",
        POD.replace(
            "    image: nginx:1.27",
            "    image: nginx:1.27\n    resources: {limits: {memory: .nan}}",
        ),
    ),
    Case("E9-error-params-carry-minus-inf", simulation("script:\n- {at: -.inf, action: delete}\n")),
    Case("E5-lesson-at-inf", simulation("lesson:\n- {at: .inf, text: hi}\n")),
]

# --- (c) live actions -----------------------------------------------------------------


def action(
    base: str, at: float, act: Any, before: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    return {"base": base, "at": at, "before": before or [], "action": act}


ACTIONS = [
    Case(
        "E7-delete-grace-1e12",
        action("plain", 20, {"action": "delete", "gracePeriodSeconds": 10**12}),
    ),
    Case(
        "E7-delete-grace-2-63",
        action("plain", 20, {"action": "delete", "gracePeriodSeconds": 2**63}),
    ),
    Case(
        "E7-delete-grace-1e300",
        action("probed", 20, {"action": "delete", "gracePeriodSeconds": 1e300}),
    ),
    Case(
        "E7-force-delete-logs-a-301-digit-grace",
        action("sidecar", 20, {"action": "delete", "force": True, "gracePeriodSeconds": 10**300}),
    ),
    Case(
        "E11-unknown-field-lone-surrogate-logged",
        action("probed", 0, {"action": "delete", "\ud800": None}),
    ),
    Case(
        "E11-unknown-field-huge-int-logged",
        action("plain", 20, {"action": "node-down", "note": 10**300}),
    ),
    Case("E12-apply-lone-surrogate", action("plain", 60, {"action": "apply", "yaml": "\udfff"})),
]

# --- (d) Socket.IO and the share API (steps of tests/fuzz/socket_harness.py) ----------

JOIN = ("emit", "join", [{}])


def raw(packet: str) -> list[Any]:
    return [JOIN, ("raw", packet)]


SOCKET = [
    Case("S1-join-yaml-lone-surrogate", [("emit", "join", [{"yaml": "\ud800"}])]),
    Case("S1-join-scenario-lone-surrogate", [("emit", "join", [{"scenario": "\udfff"}])]),
    Case("S1-join-share-lone-surrogate", [("emit", "join", [{"share": "\ud800" * 16}])]),
    Case("S1-join-session-lone-surrogate", [("emit", "join", [{"session": "a\ud83db"}])]),
    Case("S1-apply-lone-surrogate", [JOIN, ("emit", "apply", [{"yaml": "\ud800"}])]),
    Case(
        "S1-act-unknown-field-lone-surrogate-then-share",
        [
            JOIN,
            (
                "emit",
                "act",
                [
                    {
                        "action": "set-probe",
                        "container": "app",
                        "probe": "liveness",
                        "healthy": False,
                        "note": "\ud800",
                    }
                ],
            ),
            (
                "share",
                {"yaml": POD, "actions": [{"at": 1, "action": "delete", "note": "\ud800"}]},
                "en",
            ),
        ],
    ),
    Case(
        "S2-packet-int-over-4300-digits",
        raw('2["act",{"action":"crash","exitCode":' + "9" * 5000 + "}]"),
    ),
    Case("S2-packet-invalid-json", raw('2["join",{"yaml":')),
    Case("S2-packet-deep-nesting", raw("2" + "[" * 100_000)),
    Case("S2-packet-empty-event", raw("2[]")),
    Case("S2-packet-object-not-list", raw("2{}")),
    Case("S2-packet-connect-error", raw("4")),
    Case("S2-packet-unknown-type", raw("9")),
    Case("S2-packet-empty", raw("")),
    Case(
        "S2-packet-binary-attachment",
        [
            *raw("6"),
            ("emit", "clock", [{"op": "pause"}]),
        ],  # the next packet is taken as its attachment
    ),
    Case(
        "S3-client-sends-disconnect-event",
        [JOIN, ("emit", "disconnect", [{}]), ("emit", "clock", [{"op": "pause"}])],
    ),
    Case(
        "S13-share-unknown-field-lone-surrogate-echoed", [JOIN, ("share", {"\ud800": None}, "zh")]
    ),
    Case(
        "S13-unknown-field-lone-surrogate-echoed",
        [("emit", "clock", [{"op": "play"}]), ("emit", "join", [{"lang": "en", "\ud800": None}])],
    ),
    Case("S4-share-body-deeply-nested", [JOIN, ("share", b'{"yaml": ' + b"[" * 50_000, "en")]),
    Case("S4-share-body-lone-surrogate", [JOIN, ("share", b'{"yaml": "\\ud800"}', "zh")]),
    Case("S5-share-at-1e12-does-not-open", [JOIN, ("share", {"yaml": POD, "at": 1e12}, "en")]),
    Case(
        "S5-share-with-a-crash-of-an-unknown-container",
        [
            JOIN,
            (
                "share",
                {"yaml": POD, "actions": [{"at": 1, "action": "crash", "container": "nope"}]},
                "en",
            ),
            ("emit", "clock", [{"op": "play"}]),
            ("tick", 0.1),
            ("tick", 2.0),
        ],
    ),
]
