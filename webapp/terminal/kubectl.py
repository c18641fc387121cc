"""kubectl's client side for the terminal: each command line read as kubectl reads it
(webapp/terminal/flags.py), its requests made to the session's own API in-process
(webapp/terminal/api.py), and the answer printed as kubectl 1.37 prints it: server-side
Tables through kubectl's table printer, `-o name|yaml|json`, `describe` by kubectl's
describers (webapp/kubectl), logs, delete, scale, version, api-resources and api-versions,
and every error line and exit code as kubectl's (tests/kubeapi/test_terminal.py runs the
real kubectl against the same paused session and compares).

run(session, words) -> Outcome(stdout, stderr, exit_code)
"""

from __future__ import annotations

import json
import re
import threading
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import yaml

from webapp.kubeapi.resources import RESOURCES, VERSION_INFO, Resource, group_versions
from webapp.kubectl import workloads as kubectl_workloads
from webapp.kubectl.describe import describe_pod, events_of_pod
from webapp.kubectl.tabwriter import kubectl_table_writer
from webapp.kubectl.yamlview import pod_yaml
from webapp.terminal import api, jsonpath
from webapp.terminal import shell as terminal_shell
from webapp.terminal.flags import Flag, Parsed, UsageError, parse

CLIENT_VERSION = "v1.37.1"
KUSTOMIZE_VERSION = "v5.8.1"
NAMESPACE = "default"

# kubectl's commands in the order kubectl adds them (cobra's suggestions follow this order,
# kubectl turns command sorting off): "Did you mean this?".
COMMANDS = (
    "create", "expose", "run", "set", "explain", "get", "edit", "delete", "rollout", "scale",
    "autoscale", "certificate", "cluster-info", "top", "cordon", "uncordon", "drain", "taint",
    "describe", "logs", "attach", "exec", "port-forward", "proxy", "cp", "auth", "debug",
    "events", "diff", "apply", "patch", "replace", "wait", "kustomize", "label", "annotate",
    "completion", "alpha", "api-resources", "api-versions", "config", "plugin", "version",
    "options", "help",
)  # fmt: skip


@dataclass
class Outcome:
    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0
    # A command that goes on (`get -w`): (stream, stopped) is `stream`, an iterator of
    # (stdout, stderr) chunks as its output grows, run by the caller until it ends or
    # `stop()` is called (webapp/realtime/terminal.py); a chunk (stdout, stderr, code) says
    # the exit code it ends with (else: 1 once anything went to stderr, or 0).
    stream: Any = None
    stop: Any = None
    # `exec -it POD -- sh`: the shell it opened (webapp/terminal/shell.Shell); the lines the
    # tab types next go to it until it ends (webapp/realtime/terminal.py)
    shell: Any = None


class Failed(Exception):
    """A command that ends with an error line (stderr) and exit code 1."""

    def __init__(self, text: str, stdout: str = "") -> None:
        super().__init__(text)
        self.text = text
        self.stdout = stdout


# -- the entry ------------------------------------------------------------------------------


# What this terminal does not model yet, said in the page's language (issue 19: a command we
# do not model gets a one-line answer in the user's language), never as kubectl would not.
NOT_HERE = {
    "command": {
        "en": '"kubectl {command}" is not available in this terminal yet; it runs get, describe, '
              "logs, events, exec, apply -f -, delete, scale, rollout, set image, label, patch, cordon, uncordon, drain, "
              "version, api-resources and api-versions",
        "zh": "这个终端还不支持“kubectl {command}”；它支持 get、describe、logs、events、exec、"
              "apply -f -、delete、scale、rollout、set image、label、patch、cordon、uncordon、drain、"
              "version、api-resources 和 api-versions",
    },
    "kyaml": {
        "en": "`-o kyaml` is not available in this terminal yet; -o yaml is",
        "zh": "这个终端还不支持 `-o kyaml`；可以用 -o yaml",
    },
    "output": {
        "en": "`-o {output}` is not available in this terminal yet; it prints -o wide, name, yaml, "
              "json and jsonpath=... (your own kubectl prints the rest against this session: "
              "Download, Use your own kubectl)",
        "zh": "这个终端还不支持 `-o {output}`；它支持 -o wide、name、yaml、json 和 jsonpath=..."
              "（其余格式可用你自己的 kubectl 对本会话运行：下载 → 使用你自己的 kubectl）",
    },
    "watch_output": {
        "en": "`kubectl get -w -o {output}` is not available in this terminal yet; -w prints the table",
        "zh": "这个终端还不支持 `kubectl get -w -o {output}`；-w 只打印表格",
    },
    "describe": {
        "en": '"kubectl describe {kind}" is not available in this terminal yet; it describes {kinds}',
        "zh": "这个终端还不支持“kubectl describe {kind}”；它能 describe {kinds}",
    },
    "logs_owner": {
        "en": '"kubectl logs {kind}/NAME" is not available in this terminal yet; name the Pod',
        "zh": "这个终端还不支持“kubectl logs {kind}/名称”；请直接写 Pod 的名称",
    },
    "exec_interactive": {
        "en": "`kubectl exec -i` runs a shell in this terminal (sh, bash, ash: kubectl exec -it POD "
              "-- sh), not other programs yet; run one command: kubectl exec POD -- COMMAND",
        "zh": "这个终端的 `kubectl exec -i` 只能打开 shell（sh、bash、ash：kubectl exec -it Pod -- sh），"
              "还不支持其他程序；请一次运行一条命令：kubectl exec Pod -- 命令",
    },
    "rollout_kind": {
        "en": '"kubectl rollout {sub} {kind}" is not available in this terminal yet; it rolls out '
              "deployments (status also statefulsets, restart also statefulsets and daemonsets)",
        "zh": "这个终端还不支持“kubectl rollout {sub} {kind}”；它支持 deployments"
              "（status 也支持 statefulsets，restart 也支持 statefulsets 和 daemonsets）",
    },
    "rollout_help": {
        "en": "`kubectl rollout` needs what to do: status, history, undo, restart, pause or resume "
              "(e.g. kubectl rollout status deploy/web)",
        "zh": "`kubectl rollout` 需要子命令：status、history、undo、restart、pause 或 resume"
              "（例如 kubectl rollout status deploy/web）",
    },
    "rollout_revision": {
        "en": "`kubectl rollout history --revision` is not available in this terminal yet",
        "zh": "这个终端还不支持 `kubectl rollout history --revision`",
    },
    "exec_owner": {
        "en": "`kubectl exec TYPE/NAME` is not available in this terminal yet; name the Pod",
        "zh": "这个终端还不支持 `kubectl exec 类型/名称`；请直接写 Pod 的名称",
    },
    "events_output": {
        "en": "`kubectl events -o` and `--watch` are not available in this terminal yet; "
              "`kubectl get events -o ...` and `kubectl get events -w` are",
        "zh": "这个终端还不支持 `kubectl events -o` 和 `--watch`；可以用 `kubectl get events -o ...` "
              "和 `kubectl get events -w`",
    },
    "apply_file": {
        "en": "this terminal has no files: give the manifest as a here-document, "
              "`kubectl apply -f - <<EOF`, then its lines, then `EOF` (or paste it into the editor "
              "and press Apply)",
        "zh": "这个终端没有文件：请用 here-document 给出清单：`kubectl apply -f - <<EOF`，"
              "然后是清单的各行，最后一行写 `EOF`（或者把它粘贴到编辑器里再点“应用”）",
    },
    "apply_mode": {
        "en": "`kubectl apply --server-side` and `--dry-run` are not available in this terminal yet; "
              "`kubectl apply -f -` is (your own kubectl runs them against this session)",
        "zh": "这个终端还不支持 `kubectl apply --server-side` 和 `--dry-run`；可以用 `kubectl apply -f -`"
              "（你自己的 kubectl 可以对本会话运行它们）",
    },
    "patch_file": {
        "en": "`kubectl patch --patch-file` is not available in this terminal (it has no files); "
              "give the patch with -p",
        "zh": "这个终端不支持 `kubectl patch --patch-file`（它没有文件）；请用 -p 给出补丁",
    },
    "set_other": {
        "en": "this terminal runs `kubectl set image` only; env, resources, selector, "
              "serviceaccount and subject are not here yet",
        "zh": "这个终端只支持 `kubectl set image`；env、resources、selector、serviceaccount "
              "和 subject 还不支持",
    },
}  # fmt: skip


class NotHere(Exception):
    """A command, flag or form this terminal does not run yet (NOT_HERE[code])."""

    def __init__(self, code: str, **params: str) -> None:
        super().__init__(code)
        self.code = code
        self.params = params

    def text(self, lang: str) -> str:
        texts = NOT_HERE[self.code]
        return "error: " + texts.get(lang, texts["en"]).format(**self.params) + "\n"


LANG: ContextVar[str] = ContextVar("terminal_lang", default="en")


def run(session: Any, words: list[str], lang: str = "en", stdin: str | None = None) -> Outcome:
    """`kubectl WORDS...` against `session` (words after "kubectl"); `lang`: the page's
    language, for what this terminal does not run yet; `stdin`: a here-document's text."""
    LANG.set(lang)
    STDIN.set(stdin)
    if not words:
        return Outcome(stdout=USAGE)
    command, rest = words[0], words[1:]
    handler = HANDLERS.get(command)
    try:
        if handler is None:
            if command in COMMANDS:
                raise NotHere("command", command=command)
            if command.startswith("-"):
                raise Failed(f"error: unknown flag: {command}\nSee 'kubectl --help' for usage.\n")
            raise Failed(unknown_command(command))
        return handler(session, rest)
    except UsageError as error:
        return Outcome(stderr=error.text, exit_code=1)
    except Failed as error:
        return Outcome(stdout=error.stdout, stderr=error.text, exit_code=1)
    except NotHere as error:
        return Outcome(stderr=error.text(lang), exit_code=1)


USAGE = "kubectl controls the Kubernetes cluster manager.\n\n Find more information at: https://kubernetes.io/docs/reference/kubectl/\n"


def levenshtein(a: str, b: str) -> int:
    """cobra's ld (case-insensitive)."""
    a, b = a.lower(), b.lower()
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            cur = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
            prev = cur
    return row[-1]


def unknown_command(name: str) -> str:
    """cobra's `unknown command "X" for "kubectl"` with its suggestions (distance <= 2 or a
    prefix), in the order kubectl adds its commands."""
    suggestions = [c for c in COMMANDS
                   if levenshtein(name, c) <= 2 or c.lower().startswith(name.lower())]  # fmt: skip
    text = f'error: unknown command "{name}" for "kubectl"\n'
    if suggestions:
        text += "\nDid you mean this?\n" + "".join(f"\t{s}\n" for s in suggestions)
    return text


def status_error(body: Any) -> str:
    """kubectl's line for an API Status error (StandardErrorMessage)."""
    if isinstance(body, dict) and body.get("kind") == "Status":
        reason, message = body.get("reason") or "", body.get("message") or ""
        if reason:
            return f"Error from server ({reason}): {message}\n"
        return f"Error from server: {message}\n"
    return f"Error from server: {body}\n"


def list_error(body: Any, res: Resource, query: dict[str, str]) -> Any:
    """cli-runtime's Selector.Visit: a BadRequest or NotFound of a list names what was
    listed (and the selectors)."""
    if not isinstance(body, dict) or body.get("reason") not in ("BadRequest", "NotFound"):
        return body
    gvr = f'"{res.group}/{res.version}, Resource={res.plural}"'
    labels, fields = query.get("labelSelector", ""), query.get("fieldSelector", "")
    if not labels and not fields:
        message = f"Unable to list {gvr}: {body.get('message')}"
    else:
        message = (f'Unable to find {gvr} that match label selector "{labels}", field selector '
                   f'"{fields}": {body.get("message")}')  # fmt: skip
    return {**body, "message": message}


def _call(session: Any, method: str, path: str, query: dict[str, str] | None = None,
          **more: Any) -> Any:  # fmt: skip
    status, body = api.request(session, method, path, query, **more)
    if status >= 400:
        raise Failed(status_error(body))
    return body


# -- resources ------------------------------------------------------------------------------


def find_resource(text: str) -> Resource | None:
    """The RESTMapper's lookup: plural, singular, short name or kind, any case, optionally
    `.group` qualified."""
    lowered = text.lower()
    name, _, group = lowered.partition(".")
    for r in RESOURCES:
        if r.kind == "SelfSubjectAccessReview":
            continue
        names = {r.plural, r.singular, r.kind.lower(), *r.short_names}
        if group:
            if name in names and (r.group == group or r.group.startswith(group + ".")):
                return r
        elif lowered in names:
            return r
    return None


def _resource_or_fail(text: str) -> Resource:
    res = find_resource(text)
    if res is None:
        raise Failed(f'error: the server doesn\'t have a resource type "{text}"\n')
    return res


def _collection(res: Resource, namespace: str | None) -> str:
    base = f"/api/{res.version}" if not res.group else f"/apis/{res.group}/{res.version}"
    if res.namespaced and namespace is not None:
        return f"{base}/namespaces/{namespace}/{res.plural}"
    return f"{base}/{res.plural}"


def _prefix(res: Resource) -> str:
    """`pod`, `deployment.apps`: the resource as -o name and multi-kind tables write it."""
    return f"{res.kind.lower()}.{res.group}" if res.group else res.kind.lower()


def _targets(args: list[str]) -> list[tuple[Resource, list[str]]]:
    """`TYPE[,TYPE] [NAME...]` or `TYPE/NAME ...`: what to read, in order."""
    if not args:
        return []
    if "/" in args[0]:
        out: list[tuple[Resource, list[str]]] = []
        for arg in args:
            kind, slash, name = arg.partition("/")
            if not slash or not name:
                raise Failed(
                    "error: arguments in resource/name form must have a single resource and name\n"
                )
            res = _resource_or_fail(kind)
            if out and out[-1][0] is res:
                out[-1][1].append(name)
            else:
                out.append((res, [name]))
        return out
    kinds: list[Resource] = []
    for text in args[0].split(","):
        if text == "all":
            kinds.extend(r for r in RESOURCES if "all" in r.categories)
        elif text:
            kinds.append(_resource_or_fail(text))
    names = args[1:]
    if names and len(kinds) > 1:
        raise Failed("error: you must specify only one resource\n")
    return [(r, list(names)) for r in kinds]


# -- get ----------------------------------------------------------------------------------

GET_FLAGS = (
    Flag("output", "o"),
    Flag("selector", "l"),
    Flag("field-selector"),
    Flag("all-namespaces", "A", "bool"),
    Flag("show-labels", kind="bool"),
    Flag("no-headers", kind="bool"),
    Flag("watch", "w", "bool"),
    Flag("show-kind", kind="bool"),
)
OUTPUTS = ("wide", "name", "yaml", "json")
# kubectl get's other printers (its "allowed formats"): real, and not here yet
PRINTERS = ("custom-columns", "custom-columns-file", "go-template", "go-template-file",
            "jsonpath", "jsonpath-as-json", "jsonpath-file", "template", "templatefile")  # fmt: skip


def _namespace(parsed: Parsed) -> str:
    return parsed["namespace"] or NAMESPACE


def _labels_cell(obj: dict) -> str:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    if not labels:
        return "<none>"
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def _cell(value: Any) -> str:
    if value is None:
        return "<none>"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def print_table(tables: list[tuple[Resource, dict]], *, wide: bool, all_namespaces: bool,
                show_labels: bool, no_headers: bool, with_kind: bool) -> str:  # fmt: skip
    """kubectl's human-readable printer of server-side Tables (one writer for all of them,
    a blank line between kinds)."""
    out = []
    for res, table in tables:
        writer = kubectl_table_writer()
        columns = [
            c for c in table.get("columnDefinitions") or [] if wide or c.get("priority", 0) == 0
        ]
        indexes = [i for i, c in enumerate(table.get("columnDefinitions") or [])
                   if wide or c.get("priority", 0) == 0]  # fmt: skip
        if not table.get("rows"):
            continue
        if not no_headers:
            header = [c["name"].upper() for c in columns]
            if all_namespaces and res.namespaced:
                header.insert(0, "NAMESPACE")
            if show_labels:
                header.append("LABELS")
            writer.write("\t".join(header) + "\n")
        for row in table["rows"]:
            cells = [_cell(row["cells"][i]) if i < len(row["cells"]) else "" for i in indexes]
            metadata = (row.get("object") or {}).get("metadata") or {}
            if with_kind and cells:
                cells[0] = f"{_prefix(res)}/{cells[0]}"
            if all_namespaces and res.namespaced:
                cells.insert(0, metadata.get("namespace", ""))
            if show_labels:
                cells.append(_labels_cell(row.get("object") or {}))
            writer.write("\t".join(cells) + "\n")
        out.append(writer.flush())
    return "\n".join(out)


def _as_list(items: list[dict]) -> dict:
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}


def _typed(res: Resource, obj: dict) -> dict:
    return {"apiVersion": res.api_version, "kind": res.kind, **obj}


def print_json(value: Any) -> str:
    return json.dumps(value, indent=4, ensure_ascii=False, sort_keys=True) + "\n"


def print_yaml(value: Any) -> str:
    return pod_yaml(value)


def get(session: Any, words: list[str]) -> Outcome:
    parsed = parse("get", words, GET_FLAGS)
    output = parsed["output"]
    if output == "kyaml":
        raise NotHere("kyaml")
    template = None
    if output is not None and output.startswith("jsonpath="):
        template, output = output[len("jsonpath=") :], "jsonpath"
        if not template:
            raise Failed("error: template format specified but no template given\n")
    elif output == "jsonpath":
        raise Failed("error: template format specified but no template given\n")
    if (output is not None and output.split("=", 1)[0] in PRINTERS and output not in OUTPUTS
            and template is None):  # fmt: skip
        raise NotHere("output", output=output.split("=", 1)[0])
    if output is not None and output not in OUTPUTS and template is None:
        raise Failed(f"error: unable to match a printer suitable for the output format \"{output}\", "
                     "allowed formats are: custom-columns,custom-columns-file,go-template,"
                     "go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,kyaml,name,"
                     "template,templatefile,wide,yaml\n")  # fmt: skip
    targets = _targets(parsed.args)
    if parsed["watch"] and targets:
        return watch(session, parsed, targets)
    if not targets:
        raise Failed(
            'You must specify the type of resource to get. Use "kubectl api-resources" for a '
            "complete list of supported resources.\n\nerror: Required resource not specified.\n"
            'Use "kubectl explain <resource>" for a detailed description of that resource '
            "(e.g. kubectl explain pods).\nSee 'kubectl get -h' for help and examples\n"
        )
    namespace = None if parsed["all-namespaces"] else _namespace(parsed)
    query: dict[str, str] = {}
    if parsed["selector"]:
        query["labelSelector"] = parsed["selector"]
    if parsed["field-selector"]:
        query["fieldSelector"] = parsed["field-selector"]
    want_table = output in (None, "wide")
    tables: list[tuple[Resource, dict]] = []
    objects: list[tuple[Resource, dict]] = []
    errors: list[str] = []
    named = any(names for _, names in targets)
    for res, names in targets:
        if names:
            for name in names:
                status, body = api.request(session, "GET", f"{_collection(res, namespace or NAMESPACE)}/{name}",
                                           table=want_table)  # fmt: skip
                if status >= 400:
                    errors.append(status_error(body))
                elif want_table:
                    tables.append((res, body))
                else:
                    objects.append((res, body))
            continue
        status, body = api.request(session, "GET", _collection(res, namespace), query,
                                   table=want_table)  # fmt: skip
        if status >= 400:
            errors.append(status_error(list_error(body, res, query)))
            continue
        if want_table:
            tables.append((res, body))
        else:
            objects.extend((res, item) for item in body.get("items") or [])
    stdout = ""
    if want_table:
        merged: list[tuple[Resource, dict]] = []
        for res, table in tables:  # several names of one kind: one table
            if merged and merged[-1][0] is res and named:
                merged[-1][1]["rows"].extend(table.get("rows") or [])
            else:
                merged.append((res, {**table, "rows": list(table.get("rows") or [])}))
        kinds = {res.kind for res, t in merged if t.get("rows")}
        stdout = print_table(merged, wide=output == "wide", all_namespaces=namespace is None,
                             show_labels=parsed["show-labels"], no_headers=parsed["no-headers"],
                             with_kind=len(kinds) > 1 or parsed["show-kind"])  # fmt: skip
        empty = not any(t.get("rows") for _, t in merged)
    elif output == "name":
        stdout = "".join(f"{_prefix(res)}/{obj['metadata']['name']}\n" for res, obj in objects)
        empty = not objects
    else:
        typed = [_typed(res, obj) for res, obj in objects]
        single = named and len(typed) == 1 and len(targets) == 1 and len(targets[0][1]) == 1
        value = typed[0] if single else _as_list(typed)
        if template is not None:
            try:
                stdout = jsonpath.render(template, value)
            except jsonpath.JsonPathError as error:
                raise Failed(f"error: error parsing jsonpath {template}, {error}\n") from error
        else:
            stdout = print_json(value) if output == "json" else print_yaml(value)
        empty = False
    stderr = "".join(errors)
    if empty and not errors and not named:
        all_cluster = all(not res.namespaced for res, _ in targets)
        stderr = ("No resources found\n" if namespace is None or all_cluster
                  else f"No resources found in {namespace} namespace.\n")  # fmt: skip
    return Outcome(stdout, stderr, 1 if errors else 0)


def watch(session: Any, parsed: Parsed, targets: list[tuple[Resource, list[str]]]) -> Outcome:
    """`kubectl get TYPE [NAME] -w`: the list printed, then one row per watch event from the
    list's resourceVersion, through one tabwriter that remembers its widths (as kubectl's
    does: webapp/kubectl/watch.py)."""
    import threading

    if len(targets) > 1 or len(targets[0][1]) > 1:
        count = sum(max(1, len(names)) for _, names in targets)
        raise Failed("error: watch is only supported on individual resources and resource "
                     f"collections, but {count} resources were found\n")  # fmt: skip
    if parsed["output"] not in (None, "wide"):
        raise NotHere("watch_output", output=parsed["output"])
    res, names = targets[0]
    namespace = None if parsed["all-namespaces"] else _namespace(parsed)
    query: dict[str, str] = {}
    if parsed["selector"]:
        query["labelSelector"] = parsed["selector"]
    fields = [
        f for f in [parsed["field-selector"], f"metadata.name={names[0]}" if names else ""] if f
    ]
    if fields:
        query["fieldSelector"] = ",".join(fields)
    status, table = api.request(session, "GET", _collection(res, namespace), query, table=True)
    if status >= 400:
        raise Failed(status_error(list_error(table, res, query)))
    if names and not table.get("rows"):
        raise Failed(status_error({"kind": "Status", "reason": "NotFound",
                                   "message": f'{res.plural}{"." + res.group if res.group else ""} "{names[0]}" not found'}))  # fmt: skip
    stop = threading.Event()
    watch_query = {**query, "watch": "true",
                   "resourceVersion": (table.get("metadata") or {}).get("resourceVersion", "")}  # fmt: skip
    status, body = api.request(session, "GET", _collection(res, namespace), watch_query,
                               table=True, environ={"playground.stopped": stop.is_set})  # fmt: skip
    if status >= 400:
        raise Failed(status_error(body))
    writer = kubectl_table_writer()
    wide = parsed["output"] == "wide"
    definitions = table.get("columnDefinitions") or []
    options = {"definitions": definitions, "wide": wide, "all_namespaces": namespace is None,
               "show_labels": parsed["show-labels"]}  # fmt: skip
    first = _watch_rows(writer, res, table, header=not parsed["no-headers"], **options)

    def stream() -> Any:
        try:
            for raw in body:
                if stop.is_set():
                    return
                if not raw:
                    continue
                event = json.loads(raw)
                if event.get("type") == "ERROR":
                    yield "", status_error(event.get("object"))
                    return
                if event.get("type") in ("ADDED", "MODIFIED", "DELETED"):
                    text = _watch_rows(writer, res, event["object"], header=False, **options)
                    if text:
                        yield text, ""
        finally:
            close = getattr(body, "close", None)
            if close is not None:
                close()

    return Outcome(first, "", 0, stream=stream(), stop=stop.set)


def _watch_rows(writer: Any, res: Resource, table: dict, *, header: bool, definitions: list,
                wide: bool, all_namespaces: bool, show_labels: bool) -> str:  # fmt: skip
    """The rows of one Table (the list's, or one watch event's) with the list's columns."""
    indexes = [i for i, c in enumerate(definitions) if wide or c.get("priority", 0) == 0]
    if header and definitions:
        names = [definitions[i]["name"].upper() for i in indexes]
        if all_namespaces and res.namespaced:
            names.insert(0, "NAMESPACE")
        if show_labels:
            names.append("LABELS")
        writer.write("\t".join(names) + "\n")
    for row in table.get("rows") or []:
        cells = [_cell(row["cells"][i]) if i < len(row["cells"]) else "" for i in indexes]
        metadata = (row.get("object") or {}).get("metadata") or {}
        if all_namespaces and res.namespaced:
            cells.insert(0, metadata.get("namespace", ""))
        if show_labels:
            cells.append(_labels_cell(row.get("object") or {}))
        writer.write("\t".join(cells) + "\n")
    return str(writer.flush())


# -- describe -------------------------------------------------------------------------------

DESCRIBE_FLAGS = (Flag("selector", "l"), Flag("all-namespaces", "A", "bool"),
                  Flag("show-events", kind="bool", default=True))  # fmt: skip
DESCRIBABLE = ("Pod", "Deployment", "ReplicaSet", "Job", "StatefulSet", "DaemonSet",
               "PodDisruptionBudget", "Service")  # fmt: skip


def _owned_by(obj: dict, owner: dict) -> bool:
    uid = owner["metadata"].get("uid")
    return any(r.get("uid") == uid for r in obj["metadata"].get("ownerReferences") or [])


def _describe_one(session: Any, res: Resource, obj: dict, namespace: str) -> str:
    events = _call(session, "GET", f"/api/v1/namespaces/{namespace}/events").get("items") or []
    with session.lock:
        now = session.sim.wall_time()
    if res.kind == "Pod":
        return describe_pod(obj, events_of_pod(obj, events), now)
    mine = kubectl_workloads.events_of_object(obj, res.kind, events)
    if res.kind == "Deployment":
        from webapp.engine.controllers.rules import deployment as deployment_rules

        sets = (
            _call(session, "GET", f"/apis/apps/v1/namespaces/{namespace}/replicasets").get("items")
            or []
        )
        owned = [rs for rs in sets if _owned_by(rs, obj)]
        new = deployment_rules.find_new_replica_set(obj, owned)
        old = deployment_rules.find_old_replica_sets(obj, owned)
        return kubectl_workloads.describe_deployment(obj, old, [new] if new else [], mine, now)
    if res.kind == "Job":
        return kubectl_workloads.describe_job(obj, mine, now)
    if res.kind == "PodDisruptionBudget":
        return kubectl_workloads.describe_pdb(obj, mine, now)
    if res.kind == "Service":
        name = obj["metadata"]["name"]
        slices = _call(session, "GET", f"/apis/discovery.k8s.io/v1/namespaces/{namespace}/endpointslices",
                       {"labelSelector": f"kubernetes.io/service-name={name}"}).get("items") or []  # fmt: skip
        return kubectl_workloads.describe_service(obj, slices, mine, now)
    pods = _call(session, "GET", f"/api/v1/namespaces/{namespace}/pods").get("items") or []
    owned_pods = [p for p in pods if _owned_by(p, obj)]
    if res.kind == "ReplicaSet":
        return kubectl_workloads.describe_replicaset(obj, owned_pods, mine, now)
    if res.kind == "StatefulSet":
        return kubectl_workloads.describe_statefulset(obj, owned_pods, mine, now)
    return kubectl_workloads.describe_daemonset(obj, owned_pods, mine, now)


def describe(session: Any, words: list[str]) -> Outcome:
    parsed = parse("describe", words, DESCRIBE_FLAGS)
    if not parsed.args:
        raise Failed('error: You must specify the type of resource to describe. Use "kubectl '
                     'api-resources" for a complete list of supported resources.\n')  # fmt: skip
    namespace = _namespace(parsed)
    texts: list[str] = []
    errors: list[str] = []
    for res, names in _targets(parsed.args):
        if res.kind not in DESCRIBABLE:
            raise NotHere("describe", kind=res.plural,
                          kinds=", ".join(r.plural for r in RESOURCES if r.kind in DESCRIBABLE))  # fmt: skip
        if names:
            for name in names:
                status, body = api.request(session, "GET", f"{_collection(res, namespace)}/{name}")
                if status >= 400:
                    errors.append(status_error(body))
                else:
                    texts.append(_describe_one(session, res, body, namespace))
            continue
        query = {"labelSelector": parsed["selector"]} if parsed["selector"] else None
        items = _call(session, "GET", _collection(res, namespace), query).get("items") or []
        if not items:
            errors.append(f"No resources found in {namespace} namespace.\n")
        texts.extend(_describe_one(session, res, obj, namespace) for obj in items)
    stdout = "\n\n".join(t.rstrip("\n") for t in texts) + ("\n" if texts else "")
    failed = any(e.startswith("Error") for e in errors)
    return Outcome(stdout, "".join(errors), 1 if failed else 0)


# -- logs -----------------------------------------------------------------------------------

LOGS_FLAGS = (
    Flag("container", "c"),
    Flag("previous", "p", "bool"),
    Flag("timestamps", kind="bool"),
    Flag("tail", kind="int", default=-1),
    Flag("follow", "f", "bool"),
    Flag("all-containers", kind="bool"),
)
LOGS_USAGE = (
    "error: expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\n"
    "POD or TYPE/NAME is a required argument for the logs command\n"
    "See 'kubectl logs -h' for help and examples\n"
)


def logs(session: Any, words: list[str]) -> Outcome:
    parsed = parse("logs", words, LOGS_FLAGS)
    args = parsed.args
    if not args or len(args) > 2:
        raise Failed(LOGS_USAGE)
    name = args[0]
    if "/" in name:
        kind, _, name = name.partition("/")
        res = _resource_or_fail(kind)
        if res.kind != "Pod":
            raise NotHere("logs_owner", kind=res.plural)
    container = parsed["container"] or (args[1] if len(args) == 2 else None)
    namespace = _namespace(parsed)
    status, pod = api.request(session, "GET", f"/api/v1/namespaces/{namespace}/pods/{name}")
    if status == 404:
        raise Failed(f'error: error from server (NotFound): pods "{name}" not found in namespace '
                     f'"{namespace}"\n')  # fmt: skip
    if status >= 400:
        raise Failed(status_error(pod))
    query: dict[str, str] = {}
    if container is None:
        from webapp.kubectl.logs import default_container

        container, notices = default_container(pod)
        banner = "".join(f"{notice}\n" for notice in notices)
    else:
        banner = ""
    from webapp.kubectl.logs import all_container_names

    names = all_container_names(pod)
    if container not in names:
        raise Failed(f"error: container {container} is not valid for pod {name} out of: "
                     f"{', '.join(names)}\n")  # fmt: skip
    query["container"] = container
    if parsed["previous"]:
        query["previous"] = "true"
    if parsed["timestamps"]:
        query["timestamps"] = "true"
    if parsed["tail"] is not None and parsed["tail"] >= 0:
        query["tailLines"] = str(parsed["tail"])
    if parsed["follow"]:
        return _follow_log(
            session, f"/api/v1/namespaces/{namespace}/pods/{name}/log", query, banner
        )
    status, body = api.request(
        session, "GET", f"/api/v1/namespaces/{namespace}/pods/{name}/log", query
    )
    if status >= 400:
        raise Failed(banner + status_error(body))
    return Outcome(body if isinstance(body, str) else json.dumps(body), banner, 0)


def _follow_log(session: Any, path: str, query: dict[str, str], banner: str) -> Outcome:
    """`kubectl logs -f`: the lines so far, then each new one as the container writes it,
    until Ctrl+C or the container ends (then kubectl exits 0, as here)."""
    stop = threading.Event()
    status, body = api.request(session, "GET", path, {**query, "follow": "true"},
                               environ={"playground.stopped": stop.is_set})  # fmt: skip
    if status >= 400:
        raise Failed(banner + status_error(body))
    if isinstance(body, str):  # answered whole (not streamed)
        return Outcome(body, banner, 0)
    chunks = iter(body)
    first = ""
    for chunk in chunks:  # the API yields b"" first (its headers out), then the lines so far
        if chunk:
            first = chunk.decode("utf-8", "replace")
            break

    def stream() -> Any:
        try:
            for chunk in chunks:
                if stop.is_set():
                    return
                if chunk:
                    yield chunk.decode("utf-8", "replace"), ""
        finally:
            close = getattr(body, "close", None)
            if close is not None:
                close()

    return Outcome(first, banner, 0, stream=stream(), stop=stop.set)


# -- delete, scale --------------------------------------------------------------------------

DELETE_FLAGS = (
    Flag("grace-period", kind="int", default=-1),
    Flag("now", kind="bool"),
    Flag("force", kind="bool"),
    Flag("wait", kind="bool", default=True),
    Flag("selector", "l"),
    Flag("cascade", default="background"),
)


def delete(session: Any, words: list[str]) -> Outcome:
    parsed = parse("delete", words, DELETE_FLAGS)
    if not parsed.args:
        raise Failed("error: You must provide one or more resources by argument or filename.\n"
                     "Example resource specifications include:\n   '-f rsrc.yaml'\n"
                     "   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'\n")  # fmt: skip
    namespace = _namespace(parsed)
    grace = parsed["grace-period"]
    if parsed["now"]:
        grace = 1
    if parsed["force"] and grace < 0:
        grace = 0
    body: dict[str, Any] = {"kind": "DeleteOptions", "apiVersion": "v1",
                            "propagationPolicy": "Background"}  # fmt: skip
    if grace >= 0:
        body["gracePeriodSeconds"] = grace
    out, errors = [], []
    for res, names in _targets(parsed.args):
        if not names:
            raise Failed("error: resource(s) were provided, but no name was specified\n")
        for name in names:
            status, answer = api.request(session, "DELETE", f"{_collection(res, namespace)}/{name}",
                                         body=body)  # fmt: skip
            if status >= 400:
                errors.append(status_error(answer))
            else:
                where = f" from {namespace} namespace" if res.namespaced else ""
                out.append(
                    f'{res.kind.lower()}{"." + res.group if res.group else ""} "{name}" deleted{where}\n'
                )
    stderr = ""
    if parsed["force"] and grace == 0:
        stderr = ("Warning: Immediate deletion does not wait for confirmation that the running "
                  "resource has been terminated. The resource may continue to run on the cluster "
                  "indefinitely.\n")  # fmt: skip
    return Outcome("".join(out), stderr + "".join(errors), 1 if errors else 0)


SCALE_FLAGS = (
    Flag("replicas", kind="int", default=-1),
    Flag("current-replicas", kind="int", default=-1),
)


def scale(session: Any, words: list[str]) -> Outcome:
    parsed = parse("scale", words, SCALE_FLAGS)
    if "replicas" not in parsed.given:
        raise Failed('error: required flag(s) "replicas" not set\n')
    if parsed["replicas"] < 0:
        raise Failed(
            "error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0\n"
        )
    targets = _targets(parsed.args)
    if not targets:
        raise Failed("error: You must provide one or more resources by argument or filename.\n"
                     "Example resource specifications include:\n   '-f rsrc.yaml'\n"
                     "   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'\n")  # fmt: skip
    namespace = _namespace(parsed)
    out, errors = [], []
    for res, names in targets:
        for name in names:
            path = f"{_collection(res, namespace)}/{name}/scale"
            status, answer = api.request(session, "PATCH", path, body={"spec": {"replicas": parsed["replicas"]}},
                                         content_type="application/merge-patch+json")  # fmt: skip
            if status >= 400:
                errors.append(status_error(answer))
            else:
                out.append(f"{_prefix(res)}/{name} scaled\n")
    return Outcome("".join(out), "".join(errors), 1 if errors else 0)


# -- exec --------------------------------------------------------------------------------

EXEC_FLAGS = (Flag("container", "c"), Flag("stdin", "i", "bool"), Flag("tty", "t", "bool"),
              Flag("quiet", "q", "bool"))  # fmt: skip


def exec_command(session: Any, words: list[str]) -> Outcome:
    """`kubectl exec POD [-c C] -- COMMAND...`: the engine's exec in the container's
    process model (webapp/kubeapi/exec_ws.exec_in, as the API runs it for kubectl)."""
    from webapp.engine.store.errors import ApiError
    from webapp.kubeapi.exec_ws import EXEC_MAX_BYTES, exec_in
    from webapp.kubectl.logs import all_container_names, default_container

    parsed = parse("exec", words, EXEC_FLAGS)
    args, dash = parsed.args, parsed.dash
    if not args or dash == 0:
        raise Failed("error: pod, type/name or --filename must be specified\n")
    if dash < 0 and len(args) > 1:
        raise Failed("error: exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- "
                     "[COMMAND] instead\nSee 'kubectl exec -h' for help and examples\n")  # fmt: skip
    command = args[1:] if dash > 0 else []
    if dash > 1:
        raise Failed("error: exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- "
                     "[COMMAND] instead\nSee 'kubectl exec -h' for help and examples\n")  # fmt: skip
    if not command:
        raise Failed("error: you must specify at least one command for the container\n")
    if parsed["stdin"] and not terminal_shell.is_shell(command):
        raise NotHere("exec_interactive")
    name = args[0]
    if "/" in name:
        kind, _, name = name.partition("/")
        if _resource_or_fail(kind).kind != "Pod":
            raise NotHere("exec_owner")
    namespace = _namespace(parsed)
    pod = _call(session, "GET", f"/api/v1/namespaces/{namespace}/pods/{name}")
    container = parsed["container"]
    notices: list[str] = []
    if not container:
        container, notices = default_container(pod)
    names = all_container_names(pod)
    if container not in names:
        raise Failed(f"error: container {container} is not valid for pod {name} out of: "
                     f"{', '.join(names)}\n")  # fmt: skip
    banner = "" if parsed["quiet"] else "".join(f"{n}\n" for n in notices)
    if sum(len(a.encode("utf-8", "replace")) + 1 for a in command) > EXEC_MAX_BYTES:
        raise Failed(banner + f"error: Request entity too large: limit is {EXEC_MAX_BYTES}\n")
    try:
        if parsed["stdin"]:  # -i (-t: with its prompt): the shell opens in this terminal
            shell, failed, refusal = terminal_shell.open_shell(
                session, namespace, pod, container, command[0], parsed["tty"]
            )
            if refusal:
                return Outcome(stderr=banner + refusal, exit_code=1)
            if shell is not None:
                return Outcome(stderr=banner, shell=shell)
            result = failed or {}
        else:
            result = exec_in(session, namespace, name, container, command)
    except ApiError as error:
        raise Failed(banner + status_error(error.status())) from None
    stderr = banner + (result.get("stderr") or "")
    if result.get("error") and result.get("exitCode") is not None:
        stderr += result["error"] if result["error"].endswith("\n") else result["error"] + "\n"
    code = result.get("exitCode")
    if result.get("error") and code is None:
        return Outcome(result.get("stdout") or "", stderr + f"error: {result['error']}\n", 1)
    code = 124 if code is None else int(code)
    if code != 0:
        stderr += f"command terminated with exit code {code}\n"
    return Outcome(result.get("stdout") or "", stderr, code)


# -- version, discovery ---------------------------------------------------------------------

VERSION_FLAGS = (Flag("output", "o"), Flag("client", kind="bool"))


def version(session: Any, words: list[str]) -> Outcome:
    parsed = parse("version", words, VERSION_FLAGS)
    output = parsed["output"]
    if output not in (None, "json", "yaml"):
        raise Failed("error: --output must be 'yaml' or 'json'\n")
    server = None if parsed["client"] else VERSION_INFO
    if output is None:
        text = f"Client Version: {CLIENT_VERSION}\nKustomize Version: {KUSTOMIZE_VERSION}\n"
        if server is not None:
            text += f"Server Version: {server['gitVersion']}\n"
        return Outcome(text)
    full = dict(VERSION_INFO)
    full.update({"gitVersion": CLIENT_VERSION})
    value: dict[str, Any] = {"clientVersion": full, "kustomizeVersion": KUSTOMIZE_VERSION}
    if server is not None:
        value["serverVersion"] = server
    if output == "json":
        return Outcome(json.dumps(value, indent=2) + "\n")
    return Outcome(yaml.safe_dump(value, default_flow_style=False))


def api_versions_command(session: Any, words: list[str]) -> Outcome:
    parse("api-versions", words, ())
    versions = sorted(f"{g}/{v}" if g else v for g, v in group_versions())
    return Outcome("".join(f"{v}\n" for v in versions))


RESOURCES_FLAGS = (Flag("output", "o"), Flag("namespaced", kind="bool", default=None),
                   Flag("api-group", default=None), Flag("no-headers", kind="bool"),
                   Flag("verbs", kind="strings"))  # fmt: skip


def api_resources(session: Any, words: list[str]) -> Outcome:
    parsed = parse("api-resources", words, RESOURCES_FLAGS)
    rows = []
    for r in sorted(RESOURCES, key=lambda r: (r.group, r.plural)):
        if "namespaced" in parsed.given and r.namespaced != parsed["namespaced"]:
            continue
        if parsed["api-group"] is not None and r.group != parsed["api-group"]:
            continue
        if parsed["verbs"] and not set(parsed["verbs"]) <= set(r.verbs):
            continue
        rows.append(r)
    output = parsed["output"]
    if output == "name":
        return Outcome("".join(f"{r.qualified}\n" for r in rows))
    writer = kubectl_table_writer()
    header = ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
    if output == "wide":
        header += ["VERBS", "CATEGORIES"]
    if not parsed["no-headers"]:
        writer.write("\t".join(header) + "\n")
    for r in rows:
        cells = [
            r.plural,
            ",".join(r.short_names),
            r.group_version,
            str(r.namespaced).lower(),
            r.kind,
        ]
        if output == "wide":
            cells += [",".join(sorted(r.verbs)), ",".join(r.categories)]
        writer.write("\t".join(cells) + "\n")
    return Outcome(writer.flush())


# -- rollout --------------------------------------------------------------------------------

ROLLOUT_SUBCOMMANDS = ("history", "pause", "restart", "resume", "status", "undo")
ROLLOUT_FLAGS = {
    "status": (Flag("watch", "w", "bool", True), Flag("revision", kind="int", default=0),
               Flag("timeout", default="0s")),
    "history": (Flag("revision", kind="int", default=0),),
    "undo": (Flag("to-revision", kind="int", default=0),),
    "restart": (),
    "pause": (),
    "resume": (),
}  # fmt: skip
# kubectl's polymorphichelpers: who may be paused, restarted, rolled back
ROLLOUT_KINDS = {
    "status": ("Deployment", "StatefulSet"),
    "history": ("Deployment",),
    "undo": ("Deployment",),
    "restart": ("Deployment", "StatefulSet", "DaemonSet"),
    "pause": ("Deployment",),
    "resume": ("Deployment",),
}
# The annotations `rollout undo` keeps from the Deployment, not from the ReplicaSet
UNDO_SKIPPED_ANNOTATIONS = (
    "kubectl.kubernetes.io/last-applied-configuration", "deployment.kubernetes.io/revision",
    "deployment.kubernetes.io/revision-history", "deployment.kubernetes.io/desired-replicas",
    "deployment.kubernetes.io/max-replicas", "deprecated.deployment.rollback.to",
)  # fmt: skip


def rollout(session: Any, words: list[str]) -> Outcome:
    if not words or words[0].startswith("-"):
        raise NotHere("rollout_help")
    if words[0] not in ROLLOUT_SUBCOMMANDS:
        raise Failed(f'error: unknown command "{" ".join(words)}"\n'
                     "See 'kubectl rollout -h' for help and examples\n")  # fmt: skip
    sub = words[0]
    parsed = parse(f"rollout {sub}", words[1:], ROLLOUT_FLAGS[sub])
    targets = _targets(parsed.args)
    if not targets or not targets[0][1]:
        raise Failed("error: required resource not specified\n" if not targets else
                     "error: resource(s) were provided, but no name was specified\n")  # fmt: skip
    namespace = _namespace(parsed)
    out: list[str] = []
    errors: list[str] = []
    for res, names in targets:
        if res.kind not in ROLLOUT_KINDS[sub]:
            raise NotHere("rollout_kind", sub=sub, kind=res.plural)
        for name in names:
            path = f"{_collection(res, namespace)}/{name}"
            status, obj = api.request(session, "GET", path)
            if status >= 400:
                errors.append(status_error(obj))
                continue
            if sub == "status":
                return _rollout_status(session, res, obj, parsed)
            try:
                out.append(ROLLOUT_ACTIONS[sub](session, res, obj, path, parsed))
            except Failed as error:
                errors.append(error.text)
    return Outcome("".join(out), "".join(errors), 1 if errors else 0)


def _quoted(res: Resource, name: str) -> str:
    """`deployments.apps "web"`: how kubectl's rollout errors name an object."""
    return f'{res.plural}{"." + res.group if res.group else ""} "{name}"'


def _patched(session: Any, path: str, patch: Any, kind: str) -> None:
    status, answer = api.request(session, "PATCH", path, body=patch, content_type=kind)
    if status >= 400:
        raise Failed(status_error(answer))


def _rollout_restart(session: Any, res: Resource, obj: dict, path: str, parsed: Parsed) -> str:
    name = obj["metadata"]["name"]
    if (obj.get("spec") or {}).get("paused"):
        raise Failed(f"error: {_quoted(res, name)} can't restart paused deployment "
                     "(run rollout resume first)\n")  # fmt: skip
    from webapp.engine.core.timefmt import rfc3339

    # kubectl writes its machine's time.Now(); here the session's clock (the page's)
    at = rfc3339(int(session.sim.now_ms))
    patch = {"spec": {"template": {"metadata": {"annotations": {
        "kubectl.kubernetes.io/restartedAt": at}}}}}  # fmt: skip
    _patched(session, path, patch, "application/strategic-merge-patch+json")
    return f"{_prefix(res)}/{name} restarted\n"


def _rollout_pause(session: Any, res: Resource, obj: dict, path: str, parsed: Parsed,
                   *, paused: bool = True) -> str:  # fmt: skip
    name = obj["metadata"]["name"]
    if bool((obj.get("spec") or {}).get("paused")) == paused:
        raise Failed(f"error: {_quoted(res, name)} is {'already' if paused else 'not'} paused\n")
    _patched(session, path, {"spec": {"paused": paused}}, "application/strategic-merge-patch+json")
    return f"{_prefix(res)}/{name} {'paused' if paused else 'resumed'}\n"


def _rollout_resume(session: Any, res: Resource, obj: dict, path: str, parsed: Parsed) -> str:
    return _rollout_pause(session, res, obj, path, parsed, paused=False)


def _revision(obj: dict) -> int:
    try:
        return int(((obj.get("metadata") or {}).get("annotations") or {})
                   .get("deployment.kubernetes.io/revision", "0"))  # fmt: skip
    except ValueError:
        return 0


def _replica_sets_of(session: Any, deployment: dict, namespace: str) -> list[dict]:
    status, listed = api.request(
        session, "GET", f"/apis/apps/v1/namespaces/{namespace}/replicasets"
    )
    if status >= 400:
        raise Failed(status_error(listed))
    return [rs for rs in listed.get("items") or [] if _owned_by(rs, deployment)]


def _rollout_history(session: Any, res: Resource, obj: dict, path: str, parsed: Parsed) -> str:
    namespace = obj["metadata"].get("namespace") or "default"
    owned = _replica_sets_of(session, obj, namespace)
    if parsed["revision"]:
        raise NotHere("rollout_revision")
    return kubectl_workloads.rollout_history(obj["metadata"]["name"], owned)


def _without_hash(template: dict) -> dict:
    template = json.loads(json.dumps(template))
    labels = (template.get("metadata") or {}).get("labels") or {}
    labels.pop("pod-template-hash", None)
    return template


def _rollout_undo(session: Any, res: Resource, obj: dict, path: str, parsed: Parsed) -> str:
    """kubectl's DeploymentRollbacker: the previous revision's template (or --to-revision's)
    written back with a JSON patch, with that ReplicaSet's annotations."""
    name = obj["metadata"]["name"]
    namespace = obj["metadata"].get("namespace") or "default"
    if (obj.get("spec") or {}).get("paused"):
        raise Failed("error: you cannot rollback a paused deployment; resume it first with "
                     "'kubectl rollout resume' and try again\n")  # fmt: skip
    owned = {_revision(rs): rs for rs in _replica_sets_of(session, obj, namespace)}
    to = parsed["to-revision"]
    if to:
        chosen = owned.get(to)
        if chosen is None:
            raise Failed(f"error: unable to find specified revision {to} in history\n")
    else:
        current = _revision(obj)
        earlier = [r for r in owned if r < current] if current else sorted(owned)[:-1]
        if not earlier:
            raise Failed(f'error: no rollout history found for deployment "{name}"\n')
        to = max(earlier)
        chosen = owned[to]
    template = _without_hash((chosen.get("spec") or {}).get("template") or {})
    if template == _without_hash((obj.get("spec") or {}).get("template") or {}):
        return (f"{_prefix(res)}/{name} skipped rollback (current template already matches "
                f"revision {to})\n")  # fmt: skip
    mine = obj["metadata"].get("annotations") or {}
    annotations = {k: mine[k] for k in UNDO_SKIPPED_ANNOTATIONS if k in mine}
    for key, value in ((chosen.get("metadata") or {}).get("annotations") or {}).items():
        if key not in UNDO_SKIPPED_ANNOTATIONS:
            annotations[key] = value
    patch = [{"op": "replace", "path": "/spec/template", "value": template},
             {"op": "replace", "path": "/metadata/annotations", "value": annotations}]  # fmt: skip
    _patched(session, path, patch, "application/json-patch+json")
    return f"{_prefix(res)}/{name} rolled back\n"


ROLLOUT_ACTIONS = {
    "restart": _rollout_restart,
    "pause": _rollout_pause,
    "resume": _rollout_resume,
    "history": _rollout_history,
    "undo": _rollout_undo,
}


def _rollout_status(session: Any, res: Resource, obj: dict, parsed: Parsed) -> Outcome:
    """`kubectl rollout status`: the status viewer's line for the object now and, while it
    is not done (and --watch), for every version the watch brings, until it is."""
    revision = parsed["revision"]

    def line_of(version: dict) -> tuple[str, bool, bool]:
        text, done = kubectl_workloads.rollout_status_transcript(res.kind, [version], revision)
        return text, done, text.startswith("error: ")

    text, done, failed = line_of(obj)
    if failed:
        return Outcome("", text, 1)
    if done or not parsed["watch"]:
        return Outcome(text, "", 0)
    name = obj["metadata"]["name"]
    namespace = obj["metadata"].get("namespace") or "default"
    stop = threading.Event()
    query = {"watch": "true", "fieldSelector": f"metadata.name={name}",
             "resourceVersion": obj["metadata"].get("resourceVersion", "")}  # fmt: skip
    status, body = api.request(session, "GET", _collection(res, namespace), query,
                               environ={"playground.stopped": stop.is_set})  # fmt: skip
    if status >= 400:
        raise Failed(status_error(body))

    def stream() -> Any:
        try:
            for raw in body:
                if stop.is_set() or not raw:
                    if stop.is_set():
                        return
                    continue
                event = json.loads(raw)
                if event.get("type") == "ERROR":
                    yield "", status_error(event.get("object"))
                    return
                if event.get("type") == "DELETED":
                    yield "", "error: object has been deleted\n"
                    return
                if event.get("type") == "MODIFIED":
                    text, done, failed = line_of(event["object"])
                    yield ("", text) if failed else (text, "")
                    if done or failed:
                        return
        finally:
            close = getattr(body, "close", None)
            if close is not None:
                close()

    return Outcome(text, "", 0, stream=stream(), stop=stop.set)


# -- cordon, uncordon -----------------------------------------------------------------------


def _cordon(session: Any, words: list[str], *, on: bool) -> Outcome:
    verb = "cordon" if on else "uncordon"
    parsed = parse(verb, words, ())
    if len(parsed.args) != 1:
        raise Failed(
            f"error: USAGE: {verb} NODE [flags]\nSee 'kubectl {verb} -h' for help and examples\n"
        )
    name = parsed.args[0]
    status, node = api.request(session, "GET", f"/api/v1/nodes/{name}")
    if status >= 400:
        raise Failed(status_error(node))
    done = "cordoned" if on else "uncordoned"
    if bool((node.get("spec") or {}).get("unschedulable")) == on:
        return Outcome(f"node/{name} already {done}\n")
    status, answer = api.request(session, "PATCH", f"/api/v1/nodes/{name}",
                                 body={"spec": {"unschedulable": True if on else None}},
                                 content_type="application/strategic-merge-patch+json")  # fmt: skip
    if status >= 400:
        raise Failed(
            f'error: unable to {verb} node "{name}": {(answer or {}).get("message", "")}\n'
        )
    return Outcome(f"node/{name} {done}\n")


def cordon(session: Any, words: list[str]) -> Outcome:
    return _cordon(session, words, on=True)


def uncordon(session: Any, words: list[str]) -> Outcome:
    return _cordon(session, words, on=False)


# -- drain ----------------------------------------------------------------------------------

DRAIN_FLAGS = (
    Flag("force", kind="bool"),
    Flag("ignore-daemonsets", kind="bool"),
    Flag("delete-emptydir-data", kind="bool"),
    Flag("delete-local-data", kind="bool"),
    Flag("disable-eviction", kind="bool"),
    Flag("grace-period", kind="int", default=-1),
    Flag("timeout", default="0s"),
    Flag("pod-selector"),
)
EVICT_RETRY_SECONDS = 5.0  # kubectl's EvictErrorRetryDelay (wall time, as kubectl sleeps)
WAIT_POLL_SECONDS = 1.0  # waitForDelete's interval
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_go_duration(text: str) -> float | None:
    """Go's time.ParseDuration ("20s", "1m30s", "0"), in seconds; None when it is not one."""
    if text == "0":
        return 0.0
    parts = re.findall(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(n) * _DURATION_UNITS[u] for n, u in parts)


def go_duration(seconds: float) -> str:
    """Go's Duration.String() for whole seconds: 20s, 1m0s, 1h2m3s."""
    whole = int(seconds)
    if whole == 0:
        return "0s"
    h, rest = divmod(whole, 3600)
    m, sec = divmod(rest, 60)
    if h:
        return f"{h}h{m}m{sec}s"
    if m:
        return f"{m}m{sec}s"
    return f"{sec}s"


def _aggregate(errors: list[str]) -> str:
    """utilerrors.NewAggregate(...).Error(): one message, or [a, b]."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


def _grouped(found: dict[str, list[str]]) -> list[str]:
    return [f"{message}: {', '.join(pods)}" for message, pods in found.items()]


def _drain_filters(pods: list[dict], parsed: Parsed) -> tuple[list[dict], list[str], list[str]]:
    """kubectl's drain filters, in its order: (pods to evict, errors, warnings)."""
    evict: list[dict] = []
    errors: dict[str, list[str]] = {}
    warnings: dict[str, list[str]] = {}
    empty_dir_ok = parsed["delete-emptydir-data"] or parsed["delete-local-data"]
    for pod in pods:
        meta = pod.get("metadata") or {}
        where = f"{meta.get('namespace', 'default')}/{meta.get('name')}"
        phase = (pod.get("status") or {}).get("phase")
        finished = phase in ("Succeeded", "Failed")
        owner = next((r for r in meta.get("ownerReferences") or [] if r.get("controller")), None)
        if owner is not None and owner.get("kind") == "DaemonSet":
            if parsed["ignore-daemonsets"]:
                warnings.setdefault("ignoring DaemonSet-managed Pods", []).append(where)
            else:
                errors.setdefault("cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to "
                                  "ignore)", []).append(where)  # fmt: skip
            continue
        if "kubernetes.io/config.mirror" in (meta.get("annotations") or {}):
            continue
        volumes = (pod.get("spec") or {}).get("volumes") or []
        if not finished and any("emptyDir" in v for v in volumes):
            if not empty_dir_ok:
                errors.setdefault("cannot delete Pods with local storage (use --delete-emptydir-data "
                                  "to override)", []).append(where)  # fmt: skip
                continue
            warnings.setdefault("deleting Pods with local storage", []).append(where)
        if owner is None and not finished:
            if not parsed["force"]:
                errors.setdefault("cannot delete Pods that declare no controller (use --force to "
                                  "override)", []).append(where)  # fmt: skip
                continue
            warnings.setdefault("deleting Pods that declare no controller", []).append(where)
        evict.append(pod)
    return evict, _grouped(errors), _grouped(warnings)


def drain(session: Any, words: list[str]) -> Outcome:
    """`kubectl drain NODE`: cordon, then evict every Pod its filters let go, retrying a
    PodDisruptionBudget's 429 every 5 s and waiting for each Pod to be gone, as kubectl's
    drain helper does; the waits go on in the stream (Ctrl+C stops them)."""
    parsed = parse("drain", words, DRAIN_FLAGS)
    if len(parsed.args) != 1:
        raise Failed(
            "error: USAGE: drain NODE [flags]\nSee 'kubectl drain -h' for help and examples\n"
        )
    timeout = parse_go_duration(parsed["timeout"])
    if timeout is None:
        raise Failed(f'error: invalid argument "{parsed["timeout"]}" for "--timeout" flag: '
                     f'time: invalid duration "{parsed["timeout"]}"\n'
                     "See 'kubectl drain --help' for usage.\n")  # fmt: skip
    name = parsed.args[0]
    status, node = api.request(session, "GET", f"/api/v1/nodes/{name}")
    if status >= 400:
        raise Failed(status_error(node))
    out: list[str] = []
    err: list[str] = []
    if (node.get("spec") or {}).get("unschedulable"):
        out.append(f"node/{name} already cordoned\n")
    else:
        status, answer = api.request(session, "PATCH", f"/api/v1/nodes/{name}",
                                     body={"spec": {"unschedulable": True}},
                                     content_type="application/strategic-merge-patch+json")  # fmt: skip
        if status >= 400:
            err.append(
                f'error: unable to cordon node "{name}": {(answer or {}).get("message", "")}\n'
            )
        else:
            out.append(f"node/{name} cordoned\n")
    query = {"fieldSelector": f"spec.nodeName={name}"}
    if parsed["pod-selector"]:
        query["labelSelector"] = parsed["pod-selector"]
    status, listed = api.request(session, "GET", "/api/v1/pods", query)
    if status >= 400:
        raise Failed("".join(err) + status_error(listed), stdout="".join(out))
    evict, errors, warnings = _drain_filters(listed.get("items") or [], parsed)

    def failed(problem: str) -> str:
        return (f'error: unable to drain node "{name}" due to error: {problem}, continuing '
                f"command...\nThere are pending nodes to be drained:\n {name}\n{problem}\n")  # fmt: skip

    if errors:
        return Outcome("".join(out), "".join(err) + failed(_aggregate(errors)), 1)
    if warnings:
        err.append(f"Warning: {'; '.join(warnings)}\n")
    if not evict:
        return Outcome("".join(out) + f"node/{name} drained\n", "".join(err), 0)
    stop = threading.Event()
    grace = parsed["grace-period"]
    delete_options: dict[str, Any] = {} if grace < 0 else {"gracePeriodSeconds": grace}
    using_eviction = not parsed["disable-eviction"]

    def request_gone(pod: dict) -> tuple[int, Any]:
        meta = pod["metadata"]
        path = f"/api/v1/namespaces/{meta.get('namespace', 'default')}/pods/{meta['name']}"
        if not using_eviction:
            return api.request(session, "DELETE", path, body={"kind": "DeleteOptions",
                               "apiVersion": "v1", **delete_options})  # fmt: skip
        body = {"apiVersion": "policy/v1", "kind": "Eviction",
                "metadata": {"name": meta["name"], "namespace": meta.get("namespace", "default")},
                **({"deleteOptions": delete_options} if delete_options else {})}  # fmt: skip
        return api.request(session, "POST", f"{path}/eviction", body=body)

    def stream() -> Any:
        deadline = None if not timeout else time.monotonic() + timeout
        problems: list[str] = []
        waiting: list[dict] = []  # evicted: until gone
        retry = list(evict)
        while retry:
            again: list[dict] = []
            for pod in retry:
                meta = pod["metadata"]
                ns, pod_name = meta.get("namespace", "default"), meta["name"]
                if using_eviction:
                    yield f"evicting pod {ns}/{pod_name}\n", ""
                if deadline is not None and time.monotonic() >= deadline:
                    problems.append(f'error when evicting pods/"{pod_name}" -n "{ns}": global '
                                    f"timeout reached: {go_duration(timeout)}")  # fmt: skip
                    continue
                status, answer = request_gone(pod)
                if status < 300:
                    waiting.append(pod)
                elif status == 404:
                    continue
                elif status == 429 and using_eviction:
                    yield "", (f'error when evicting pods/"{pod_name}" -n "{ns}" (will retry after '
                               f"5s): {(answer or {}).get('message', '')}\n")  # fmt: skip
                    again.append(pod)
                else:
                    problems.append(f'error when evicting pods/"{pod_name}" -n "{ns}": '
                                    f"{(answer or {}).get('message', '')}")  # fmt: skip
            retry = again
            if retry and stop.wait(EVICT_RETRY_SECONDS):
                return
        while waiting:
            still: list[dict] = []
            for pod in waiting:
                meta = pod["metadata"]
                path = f"/api/v1/namespaces/{meta.get('namespace', 'default')}/pods/{meta['name']}"
                status, now = api.request(session, "GET", path)
                gone = status == 404 or (status < 300 and (now.get("metadata") or {}).get("uid")
                                         != meta.get("uid"))  # fmt: skip
                if gone:
                    verb = "evicted" if using_eviction else "deleted"
                    yield f"pod/{meta['name']} {verb}\n", ""
                else:
                    still.append(pod)
            waiting = still
            if waiting and deadline is not None and time.monotonic() >= deadline:
                for pod in waiting:
                    meta = pod["metadata"]
                    problems.append(f'error when waiting for pod "{meta["name"]}" in namespace '
                                    f'"{meta.get("namespace", "default")}" to terminate: '
                                    "context deadline exceeded")  # fmt: skip
                break
            if waiting and stop.wait(WAIT_POLL_SECONDS):
                return
        if problems:
            problem = _aggregate(problems)
            status, listed = api.request(session, "GET", "/api/v1/pods", query)
            pending = _drain_filters(listed.get("items") or [], parsed)[0] if status < 300 else []
            text = ""
            if pending:
                text = (f'There are pending pods in node "{name}" when an error occurred: '
                        f"{problem}\n" + "".join(f"pod/{p['metadata']['name']}\n" for p in pending))  # fmt: skip
            yield "", text + failed(problem), 1
            return
        yield f"node/{name} drained\n", "", 0

    return Outcome("".join(out), "".join(err), 0, stream=stream(), stop=stop.set)


# -- set image, label -------------------------------------------------------------------


def _object_targets(args: list[str]) -> tuple[list[tuple[Resource, str]], list[str]]:
    """`TYPE NAME... ARGS` or `TYPE/NAME... ARGS`: the objects, then the other words (the
    first word with `=`, or one after the objects ending in `-`, starts them)."""
    split = next((i for i, a in enumerate(args) if "=" in a or (i and a.endswith("-"))), len(args))
    heads, rest = args[:split], args[split:]
    if not heads:
        return [], rest
    if "/" in heads[0]:
        return [(res, name) for res, names in _targets(heads) for name in names], rest
    res = _resource_or_fail(heads[0])
    return [(res, name) for name in heads[1:]], rest


def _pod_spec(obj: dict, kind: str) -> tuple[dict, list[str]]:
    """The Pod spec of a Pod or of a workload's template, and its place in the object."""
    spec = obj.get("spec") or {}
    if kind == "Pod":
        return spec, ["spec"]
    return (spec.get("template") or {}).get("spec") or {}, ["spec", "template", "spec"]


SET_IMAGE_FLAGS = (Flag("all", kind="bool"), Flag("selector", "l"))
TEMPLATED = ("Pod", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job")
NEEDS_OBJECTS = ("error: one or more resources must be specified as <resource> <name> or "
                 "<resource>/<name>\nSee 'kubectl {verb} -h' for help and examples\n")  # fmt: skip


def set_command(session: Any, words: list[str]) -> Outcome:
    """`kubectl set image TYPE/NAME CONTAINER=IMAGE...` (set image is the one `set` here):
    a strategic merge patch of the changed containers, `<kind>/<name> image updated`."""
    sub = next((w for w in words if not w.startswith("-")), None)
    if sub != "image":
        raise NotHere("set_other")
    words = list(words)
    words.remove("image")
    parsed = parse("set image", words, SET_IMAGE_FLAGS)
    targets, pairs = _object_targets(parsed.args)
    if not targets:
        raise Failed(NEEDS_OBJECTS.format(verb="set image"))
    if not pairs:
        raise Failed("error: at least one image update is required\n")
    images: dict[str, str] = {}
    for pair in pairs:
        container, eq, image = pair.partition("=")
        if not eq or not container or not image:
            raise Failed(f"error: invalid image update: {pair}\n")
        images[container] = image
    namespace = _namespace(parsed)
    out, errors = [], []
    for res, name in targets:
        path = f"{_collection(res, namespace)}/{name}"
        status, obj = api.request(session, "GET", path)
        if status >= 400:
            errors.append(status_error(obj))
            continue
        if res.kind not in TEMPLATED:
            errors.append(f"error: {_prefix(res)}/{name} the object is not a pod or does not "
                          f"have a pod template: {res.kind}\n")  # fmt: skip
            continue
        spec, where = _pod_spec(obj, res.kind)
        names = [c.get("name") for f in ("initContainers", "containers") for c in spec.get(f) or []]
        missing = [c for c in images if c != "*" and c not in names]
        if missing:
            errors.append(f'error: unable to find container named "{missing[0]}"\n')
            continue
        changed: dict[str, list[dict[str, str]]] = {}
        for field in ("initContainers", "containers"):
            for c in spec.get(field) or []:
                image = images.get(c.get("name")) or images.get("*")
                if image is not None and c.get("image") != image:
                    changed.setdefault(field, []).append({"image": image, "name": c["name"]})
        if not changed:
            continue  # kubectl sends no empty patch, and says nothing
        if changed:
            patch: dict[str, Any] = dict(changed)
            for key in reversed(where):
                patch = {key: patch}
            status, answer = api.request(session, "PATCH", path, body=patch,
                                         content_type="application/strategic-merge-patch+json")  # fmt: skip
            if status >= 400:
                errors.append(f"error: failed to patch image update to pod template: "
                              f"{(answer or {}).get('message', '')}\n")  # fmt: skip
                continue
        out.append(f"{_prefix(res)}/{name} image updated\n")
    return Outcome("".join(out), "".join(errors), 1 if errors else 0)


LABEL_FLAGS = (Flag("overwrite", kind="bool"), Flag("list", kind="bool"), Flag("all", kind="bool"),
               Flag("selector", "l"))  # fmt: skip
LABEL_KEY = re.compile(r"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                       r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?")  # fmt: skip
LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")


def label(session: Any, words: list[str]) -> Outcome:
    """`kubectl label TYPE NAME KEY=VALUE... KEY-...` (label.go): a JSON merge patch of the
    labels; `labeled`, `unlabeled` or `not labeled`, as its updateDataChangeMsg says."""
    parsed = parse("label", words, LABEL_FLAGS)
    targets, changes = _object_targets(parsed.args)
    if not targets:
        raise Failed(NEEDS_OBJECTS.format(verb="label"))
    if not changes:
        raise Failed("error: at least one label update is required\n")
    new: dict[str, str] = {}
    remove: list[str] = []
    for change in changes:
        if change.endswith("-") and "=" not in change:
            remove.append(change[:-1])
            continue
        key, eq, value = change.partition("=")
        if (not eq or not LABEL_KEY.fullmatch(key) or len(value) > 63
                or not LABEL_VALUE.fullmatch(value)):  # fmt: skip
            raise Failed(f"error: invalid label spec: {change}\n")
        new[key] = value
    namespace = _namespace(parsed)
    out, errors = [], []
    failed = False
    for res, name in targets:
        path = f"{_collection(res, namespace)}/{name}"
        status, obj = api.request(session, "GET", path)
        if status >= 400:
            errors.append(status_error(obj))
            failed = True
            continue
        old = dict((obj.get("metadata") or {}).get("labels") or {})
        if not parsed["overwrite"]:
            taken = next((k for k in new if k in old and old[k] != new[k]), None)
            if taken is not None:
                errors.append(f"error: '{taken}' already has a value ({old[taken]}), and "
                              "--overwrite is false\n")  # fmt: skip
                failed = True
                continue
        labels = {**old, **new}
        for key in remove:
            if key in labels:
                del labels[key]
            else:
                out.append(f'label "{key}" not found.\n')  # kubectl prints it on stdout
        message = "not labeled"
        if labels != old:
            message = "labeled"
            if not parsed["overwrite"] and len(json.dumps(labels)) < len(json.dumps(old)):
                message = "unlabeled"
            patch = {"metadata": {"labels": {**{k: v for k, v in new.items() if old.get(k) != v},
                                             **{k: None for k in remove if k in old}}}}  # fmt: skip
            status, answer = api.request(session, "PATCH", path, body=patch,
                                         content_type="application/merge-patch+json")  # fmt: skip
            if status >= 400:
                errors.append(status_error(answer))
                failed = True
                continue
        out.append(f"{_prefix(res)}/{name} {message}\n")
    return Outcome("".join(out), "".join(errors), 1 if failed else 0)


PATCH_FLAGS = (Flag("patch", "p"), Flag("type"), Flag("patch-file"), Flag("dry-run"),
               Flag("subresource"))  # fmt: skip
PATCH_TYPES = {
    "json": "application/json-patch+json",
    "merge": "application/merge-patch+json",
    "strategic": "application/strategic-merge-patch+json",
}


def patch_command(session: Any, words: list[str]) -> Outcome:
    """`kubectl patch TYPE NAME -p PATCH [--type strategic|merge|json]` (patch.go): the
    patch (JSON, or YAML as kubectl turns it into JSON) sent as is; `<kind>/<name> patched`,
    or `patched (no change)` when the object came back as it was."""
    parsed = parse("patch", words, PATCH_FLAGS)
    if parsed["patch-file"]:
        raise NotHere("patch_file")
    kind = parsed["type"] or "strategic"
    if kind not in PATCH_TYPES:
        raise Failed(f'error: --type must be one of [json merge strategic], not "{kind}"\n')
    text = parsed["patch"]
    if not text:
        raise Failed("error: must specify --patch or --patch-file containing the contents of "
                     "the patch\n")  # fmt: skip
    targets, extra = _object_targets(parsed.args)
    if not targets and parsed.args and not extra:
        raise Failed("error: resource(s) were provided, but no name was specified\n")
    if not targets or extra:
        raise Failed("error: you must specify a type and name to patch\n")
    if len(targets) != 1:
        raise Failed("error: only one resource may be patched at a time\n")
    try:
        body = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise Failed(f'error: unable to parse "{text}": {str(error).splitlines()[0]}\n') from None
    res, name = targets[0]
    path = f"{_collection(res, _namespace(parsed))}/{name}"
    before = _call(session, "GET", path)
    after = _call(session, "PATCH", path, body=body, content_type=PATCH_TYPES[kind])
    changed = after != before
    return Outcome(f"{_prefix(res)}/{name} patched{'' if changed else ' (no change)'}\n")


EVENTS_FLAGS = (Flag("for"), Flag("types"), Flag("all-namespaces", "A", "bool"),
                Flag("no-headers", kind="bool"), Flag("output", "o"), Flag("watch", "w", "bool"))  # fmt: skip


def events_command(session: Any, words: list[str]) -> Outcome:
    """`kubectl events [--for TYPE/NAME] [--types=Normal,Warning] [-A]` (pkg/cmd/events):
    the core Events listed, filtered, sorted by time and printed as its printer does."""
    from webapp.kubectl.events import kubectl_events

    parsed = parse("events", words, EVENTS_FLAGS)
    if parsed["output"] or parsed["watch"]:
        raise NotHere("events_output")
    types = [t.strip() for t in (parsed["types"] or "").split(",") if t.strip()]
    if any(t.lower() not in ("normal", "warning") for t in types):
        raise Failed("error: valid --types are Normal or Warning\n")
    everywhere = bool(parsed["all-namespaces"])
    namespace = _namespace(parsed)
    query: dict[str, str] = {}
    if parsed["for"]:
        kind, slash, name = parsed["for"].partition("/")
        if not slash or not name:
            raise Failed("error: --for must be in resource/name form\n")
        res = _resource_or_fail(kind)
        selector = f"involvedObject.kind={res.kind},involvedObject.name={name}"
        if res.group:
            selector += f",involvedObject.apiVersion={res.group}/{res.version}"
        query["fieldSelector"] = selector
    path = "/api/v1/events" if everywhere else f"/api/v1/namespaces/{namespace}/events"
    items = _call(session, "GET", path, query or None).get("items") or []
    if types:
        wanted = {t.lower() for t in types}
        items = [e for e in items if str(e.get("type", "")).lower() in wanted]
    if not items:
        where = "" if everywhere else f" in {namespace} namespace"
        return Outcome(stderr=f"No events found{where}.\n")
    with session.lock:
        now = session.sim.wall_time()
    return Outcome(kubectl_events(items, now, all_namespaces=everywhere,
                                  headers=not parsed["no-headers"]))  # fmt: skip


APPLY_FLAGS = (Flag("filename", "f"), Flag("recursive", "R", "bool"), Flag("dry-run"),
               Flag("server-side", kind="bool"), Flag("validate"))  # fmt: skip
STDIN: ContextVar[str | None] = ContextVar("terminal_stdin", default=None)


def apply_command(session: Any, words: list[str]) -> Outcome:
    """`kubectl apply -f - <<EOF` (its here-document is the line's stdin: the page collects
    it): the engine's client-side apply (engine/kubectl_apply.py), the same action as the
    editor's Apply, so its lines are kubectl's (`deployment.apps/web configured`)."""
    from webapp.manifest import ScenarioError, parse_objects
    from webapp.manifest.messages import render

    parsed = parse("apply", words, APPLY_FLAGS)
    filename = parsed["filename"]
    if not filename:
        raise Failed("error: must specify one of -f and -k\n")
    if filename != "-":
        raise NotHere("apply_file")
    if parsed["server-side"] or parsed["dry-run"]:
        raise NotHere("apply_mode")
    text = STDIN.get() or ""
    if not text.strip():
        raise Failed("error: no objects passed to apply\n")
    try:
        parse_objects(text)  # a Simulation document is the playground's, no API object
    except ScenarioError as error:
        lang = LANG.get()
        raise Failed("".join(
            f'error: error validating "STDIN": line {e["line"]}, column {e["column"]}: '
            f"{render(e['code'], e.get('params') or {}, lang)}\n"
            for e in error.errors[:5]
        )) from None  # fmt: skip
    with session.lock:
        try:
            session.act({"action": "apply", "yaml": text})
            session.used = True
        except Exception as error:
            code = getattr(error, "code", None)
            if not isinstance(code, str):
                raise
            reason = (getattr(error, "params", None) or {}).get("kubectl") or str(error)
            raise Failed(reason if reason.endswith("\n") else reason + "\n") from None
        lines = list(getattr(session.sim, "apply_result", None) or [])
    warned = [f"{line}\n" for line in lines if line.startswith("Warning: ")]  # on stderr
    return Outcome("".join(f"{line}\n" for line in lines if not line.startswith("Warning: ")),
                   "".join(warned))  # fmt: skip


HANDLERS = {
    "get": get,
    "apply": apply_command,
    "events": events_command,
    "patch": patch_command,
    "set": set_command,
    "label": label,
    "describe": describe,
    "logs": logs,
    "exec": exec_command,
    "delete": delete,
    "scale": scale,
    "rollout": rollout,
    "cordon": cordon,
    "uncordon": uncordon,
    "drain": drain,
    "version": version,
    "api-versions": api_versions_command,
    "api-resources": api_resources,
}
