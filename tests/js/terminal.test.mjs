// The page terminal's logic (static/js/terminal-core.js): history, completion, safe text.
import { test } from "node:test";
import assert from "node:assert/strict";

import { History, classify, complete, deleteCommand, namesFrom, visible } from "../../static/js/terminal-core.js";

const NAMES = {
  pods: ["web-7d4b9-abcde", "web-7d4b9-fghij", "liveness-exec"],
  deployments: ["web"],
  replicasets: ["web-7d4b9"],
  statefulsets: [],
  jobs: [],
  nodes: ["node-1"],
  containers: { "liveness-exec": ["liveness"], "web-7d4b9-abcde": ["nginx", "log-shipper"] },
};

const tab = (line) => complete(line, line.length, NAMES);

test("up and down walk the history as bash does, keeping the line being typed", () => {
  const history = new History();
  history.add("kubectl get pods");
  history.add("kubectl describe pod web");
  assert.equal(history.up("kubectl lo"), "kubectl describe pod web");
  assert.equal(history.up("ignored"), "kubectl get pods");
  assert.equal(history.up("ignored"), null); // the oldest: stays
  assert.equal(history.down(), "kubectl describe pod web");
  assert.equal(history.down(), "kubectl lo"); // back to what was being typed
  assert.equal(history.down(), null);
});

test("history skips blank lines and a repeat of the last line, and is bounded", () => {
  const history = new History([], 3);
  for (const line of ["a", "a", "  ", "b", "c", "d"]) history.add(line);
  assert.deepEqual(history.lines, ["b", "c", "d"]);
  assert.equal(history.listing(), "    1  b\n    2  c\n    3  d\n");
  assert.equal(new History().listing(), "");
});

test("Tab completes the command, kubectl's subcommands and their flags", () => {
  assert.deepEqual(tab("kub"), { line: "kubectl ", caret: 8, options: [] });
  assert.deepEqual(tab("kubectl desc"), { line: "kubectl describe ", caret: 17, options: [] });
  assert.deepEqual(tab("his"), { line: "history ", caret: 8, options: [] });
  // several: the shared part first, then the list (bash's second Tab)
  assert.equal(tab("kubectl api-").line, "kubectl api-");
  assert.deepEqual(tab("kubectl api-").options, ["api-resources", "api-versions"]);
  assert.equal(tab("kubectl get pods --sh").line, "kubectl get pods --show-labels ");
  assert.equal(tab("kubectl logs liveness-exec --prev").line, "kubectl logs liveness-exec --previous ");
  assert.deepEqual(tab("kubectl get pods -o ").options, ["json", "jsonpath=", "name", "wide", "yaml"]);
  assert.equal(tab("kubectl get pods -o jsonp").line, "kubectl get pods -o jsonpath=");
  assert.equal(tab("kubectl get pods -o w").line, "kubectl get pods -o wide ");
});

test("Tab completes kinds and the names the page knows, in both of kubectl's forms", () => {
  assert.equal(tab("kubectl get dep").line, "kubectl get deployments ");
  assert.equal(tab("kubectl describe pod liv").line, "kubectl describe pod liveness-exec ");
  assert.equal(tab("kubectl get pods web").line, "kubectl get pods web-7d4b9-");
  assert.deepEqual(tab("kubectl get pods web-7d4b9-").options, ["web-7d4b9-abcde", "web-7d4b9-fghij"]);
  assert.equal(tab("kubectl describe deploy/w").line, "kubectl describe deploy/web ");
  assert.equal(tab("kubectl scale deploy w").line, "kubectl scale deploy web ");
  assert.equal(tab("kubectl logs liv").line, "kubectl logs liveness-exec ");
  assert.equal(tab("kubectl roll").line, "kubectl rollout ");
  assert.equal(tab("kubectl uncordon n").line, "kubectl uncordon node-1 ");
  assert.equal(tab("kubectl drain node-1 --ig").line, "kubectl drain node-1 --ignore-daemonsets ");
  assert.equal(tab("kubectl rollout re").line, "kubectl rollout res");
  assert.deepEqual(tab("kubectl rollout res").options, ["restart", "resume"]);
  assert.equal(tab("kubectl rollout undo dep").line, "kubectl rollout undo deployments ");
  assert.equal(tab("kubectl rollout status deploy/").line, "kubectl rollout status deploy/web ");
  assert.equal(tab("kubectl exec liveness-exec -c l").line, "kubectl exec liveness-exec -c liveness ");
  assert.deepEqual(tab("kubectl logs web-7d4b9-abcde -c ").options, ["log-shipper", "nginx"]);
  // nothing to offer: the line is left as it is
  assert.deepEqual(tab("kubectl exec liveness-exec -- ca"), { line: "kubectl exec liveness-exec -- ca", caret: 32, options: [] });
  assert.deepEqual(tab("ls /t").options, []);
});

test("Tab in the middle of a line completes the word before the caret and keeps the rest", () => {
  const line = "kubectl desc pod web";
  const done = complete(line, "kubectl desc".length, NAMES);
  assert.equal(done.line, "kubectl describe pod web");
  assert.equal(done.caret, "kubectl describe".length);
});

test("names come from the page's state: the Pod, a cluster's objects and containers", () => {
  const state = {
    pod: { metadata: { name: "solo" }, spec: { initContainers: [{ name: "init" }], containers: [{ name: "app" }] } },
    cluster: { pods: [{ name: "web-1" }], deployments: [{ metadata: { name: "web" } }], replicaSets: [], jobs: [],
      statefulSets: [{ metadata: { name: "db" } }] },
    nodes: [{ metadata: { name: "node-1" } }],
  };
  const names = namesFrom(state);
  assert.deepEqual(names.pods, ["web-1", "solo"]);
  assert.deepEqual(names.deployments, ["web"]);
  assert.deepEqual(names.statefulsets, ["db"]);
  assert.deepEqual(names.containers.solo, ["init", "app"]);
  assert.deepEqual(names.nodes, ["node-1"]);
  assert.deepEqual(namesFrom(null).pods, []);
});

test("control characters are shown, never obeyed: an ANSI escape in a log line is text", () => {
  assert.equal(visible("\u001b[31mred\u001b[0m\n"), "^[[31mred^[[0m\n");
  assert.equal(visible("a\r\nb\tc\u0007\u007f"), "a\nb\tc^G^?");
  assert.equal(visible("\u009b2J"), "M-^[2J");
  assert.equal(visible("日志 ok"), "日志 ok");
  assert.equal(visible(undefined), "");
});

test("the shell's own commands are told from lines for the server", () => {
  assert.equal(classify("   "), "empty");
  assert.equal(classify("clear"), "clear");
  assert.equal(classify(" history "), "history");
  assert.equal(classify("history -c"), "history-clear");
  assert.equal(classify("help"), "help");
  assert.equal(classify("kubectl get pods"), "remote");
  assert.equal(classify("ls"), "remote"); // bash's answer comes from the server, in the page's language
});

test("the Delete button says the kubectl line it stands for", () => {
  assert.equal(deleteCommand({ name: "web" }), "kubectl delete pod web");
  assert.equal(deleteCommand({ name: "web", grace: "5" }), "kubectl delete pod web --grace-period=5");
  assert.equal(deleteCommand({ name: "web", grace: "0", force: true }), "kubectl delete pod web --grace-period=0 --force");
  assert.equal(deleteCommand({ name: "" }), "");
});
