// The cluster view of a workload scenario: every Pod (STATUS, READY, restarts) in a map of
// its owner (ReplicaSets side by side, old revisions first) by its node, the Service with a
// mark on each Pod its requests go to, and the requests through it. Clicking a Pod makes it the focus:
// the diagram and the per-Pod views follow it (the server's `focus` action). Hidden for a
// Pod scenario (no `cluster` in the state). Everything shown comes from the server.
import { h, s, fill, emit, setText } from "./dom.js";
import * as i18n from "./i18n.js";

export function mount(root) {
  // The Service and its traffic on top, then the map: a column per ReplicaSet (or other
  // owner; old revisions left of the new one), a row per node, each Pod a card in its cell.
  const service = h("p", { class: "cluster-service", id: "cluster-service" });
  const traffic = h("p", { class: "cluster-traffic" });
  const chart = s("svg", { class: "cluster-chart", viewBox: "0 0 120 24", preserveAspectRatio: "none",
    role: "img" });
  const map = h("div", { class: "cluster-map", id: "cluster-map", role: "table" });
  const legend = h("p", { class: "cluster-legend hint" });
  const kubectlPre = h("pre", { class: "kubectl cluster-kubectl", id: "cluster-kubectl" });
  const details = h("details", { class: "cluster-details" },
    h("summary", { "data-i18n": "cluster.kubectl" }, i18n.t("cluster.kubectl")), kubectlPre);
  root.append(h("div", { class: "cluster-top" }, service, traffic, chart), map, legend, details);
  let kubectlText = "";
  let trafficKey = "";
  let skeletonKey = "";
  let cells = new Map(); // "group|node" -> cell element
  let heads = new Map(); // group -> its header's count element
  const cards = new Map(); // pod name -> { el, sig }

  function update(state) {
    const cluster = state.cluster;
    root.hidden = !cluster;
    document.body.dataset.cluster = cluster ? "true" : "false";
    if (!cluster) {
      skeletonKey = trafficKey = "";
      return;
    }
    const text = kubectlTranscript(cluster.views || {});
    if (text !== kubectlText) {
      kubectlText = text;
      kubectlPre.textContent = text;
    }
    const model = clusterModel(cluster, state.endpointSlices || []);
    renderMap(model, cluster.focus);
    const t = cluster.traffic;
    const next = JSON.stringify([t && [t.sent, t.failed, t.perSecond?.at(-1)], model.service, model.serving.size, i18n.lang()]);
    if (next === trafficKey) return;
    trafficKey = next;
    service.hidden = !model.service;
    if (model.service) {
      setText(service, i18n.t("cluster.service", { service: model.service, count: model.serving.size }));
      service.dataset.serving = String(model.serving.size);
    }
    traffic.hidden = !t;
    if (t) {
      traffic.textContent = trafficHeadline(t);
      traffic.dataset.failed = String(t.failed);
    }
    setText(legend, i18n.t(model.service ? "cluster.legend.service" : "cluster.legend", { service: model.service }));
    drawChart(chart, t);
  }

  function renderMap(model, focus) {
    const language = i18n.lang();
    const key = JSON.stringify([language, model.groups.map((g) => [g.id, g.label, g.revision, g.age]), model.nodes]);
    if (key !== skeletonKey) {
      skeletonKey = key;
      cells = new Map();
      heads = new Map();
      map.style.setProperty("--groups", String(Math.max(1, model.groups.length)));
      const header = h("div", { class: "cluster-row cluster-row-head", role: "row" },
        h("span", { class: "cluster-corner", role: "columnheader" }, i18n.t("cluster.node")),
        model.groups.map((g) => {
          const count = h("span", { class: "cluster-count" });
          heads.set(g.id, count);
          return h("div", { class: ["cluster-group", g.age && `is-${g.age}`], role: "columnheader", dataset: { owner: g.id } },
            h("span", { class: "cluster-owner" }, g.label),
            g.revision ? h("span", { class: "cluster-revision" }, i18n.t("cluster.revision", { revision: g.revision })) : null,
            g.age ? h("span", { class: "cluster-age" }, i18n.t(`cluster.${g.age}`)) : null,
            count);
        }));
      const rows = model.nodes.map((node) =>
        h("div", { class: "cluster-row", role: "row", dataset: { node: node ?? "" } },
          h("span", { class: "cluster-node", role: "rowheader" }, node ?? i18n.t("cluster.unscheduled")),
          model.groups.map((g) => {
            const cell = h("div", { class: "cluster-cell", role: "cell" });
            cells.set(`${g.id}|${node ?? ""}`, cell);
            return cell;
          })));
      fill(map, header, rows);
    }
    // The cards: made once per Pod, rewritten only when what they show changes, moved
    // between cells only when their place changes (a tick that only ages them costs nothing).
    const wanted = new Map([...cells.keys()].map((k) => [k, []]));
    const alive = new Set();
    for (const pod of model.pods) {
      alive.add(pod.name);
      const serving = model.serving.has(pod.name);
      const sig = JSON.stringify([language, pod.status, pod.ready, pod.restarts, pod.name === focus, serving, pod.node]);
      let card = cards.get(pod.name);
      if (!card) {
        card = { el: h("button", { type: "button", class: "cluster-pod", dataset: { pod: pod.name },
          on: { click: () => emit("pg:act", { action: "focus", name: pod.name }) } }), sig: "" };
        cards.set(pod.name, card);
      }
      if (card.sig !== sig) {
        card.sig = sig;
        paintCard(card.el, pod, { focus: pod.name === focus, serving });
      }
      wanted.get(`${pod.group}|${pod.node ?? ""}`)?.push(card.el);
    }
    for (const [name, card] of cards) {
      if (!alive.has(name)) {
        card.el.remove();
        cards.delete(name);
      }
    }
    for (const [k, els] of wanted) {
      const cell = cells.get(k);
      const same = cell.children.length === els.length && els.every((el, i) => cell.children[i] === el);
      if (!same) cell.replaceChildren(...els);
    }
    for (const g of model.groups) {
      const el = heads.get(g.id);
      if (el) setText(el, i18n.t("cluster.count", { pods: g.pods, ready: g.ready }));
    }
  }

  return { update };
}

function paintCard(el, pod, { focus, serving }) {
  el.className = ["cluster-pod", focus && "is-focus", serving && "is-serving", `tone-${tone(pod.status)}`].filter(Boolean).join(" ");
  el.dataset.status = pod.status;
  el.dataset.serving = serving ? "true" : "false";
  el.setAttribute("aria-pressed", focus ? "true" : "false");
  el.title = i18n.t("cluster.focus", { pod: pod.name });
  const words = [pod.name, pod.status, pod.ready, serving ? i18n.t("cluster.serving") : "", focus ? i18n.t("cluster.followed") : ""];
  el.setAttribute("aria-label", words.filter(Boolean).join(", "));
  fill(el,
    serving ? h("span", { class: "cluster-pod-traffic", "aria-hidden": "true" }, "⇢") : null,
    h("span", { class: "cluster-pod-name" }, pod.short),
    h("span", { class: "cluster-pod-status" }, pod.status),
    h("span", { class: "cluster-pod-ready" }, pod.ready),
    pod.restarts && pod.restarts !== "0" ? h("span", { class: "cluster-pod-restarts" }, "↻" + pod.restarts) : null,
    focus ? h("span", { class: "cluster-pod-followed" }, i18n.t("cluster.followed")) : null);
}

function tone(status) {
  if (status === "Running" || status === "Completed") return "ok";
  if (/Err|BackOff|Error|Failed|OOM|Evicted|Unknown/.test(status)) return "bad";
  return "warn";
}

/** The map's model: owners (old revisions first), nodes, Pods, and who gets the Service's
 * requests (its ready endpoints; the terminating ones when none is ready, as traffic.py). */
export function clusterModel(cluster, slices) {
  const revisions = new Map();
  for (const rs of cluster.replicaSets || []) {
    const n = Number(rs.metadata?.annotations?.["deployment.kubernetes.io/revision"]);
    if (Number.isFinite(n)) revisions.set(rs.metadata.name, n);
  }
  const newest = new Map(); // a Deployment's current revision
  for (const d of cluster.deployments || []) {
    newest.set(d.metadata?.name, Number(d.metadata?.annotations?.["deployment.kubernetes.io/revision"]));
  }
  const rsOwner = new Map();
  for (const rs of cluster.replicaSets || []) {
    const ref = (rs.metadata?.ownerReferences || []).find((r) => r.controller);
    if (ref?.kind === "Deployment") rsOwner.set(rs.metadata.name, ref.name);
  }
  const groups = new Map();
  const nodes = new Set();
  const pods = [];
  for (const pod of cluster.pods || []) {
    const id = pod.owner ? `${pod.owner.kind}/${pod.owner.name}` : "";
    if (!groups.has(id)) {
      const revision = pod.owner?.kind === "ReplicaSet" ? revisions.get(pod.owner.name) ?? null : null;
      const deployment = pod.owner ? rsOwner.get(pod.owner.name) : undefined;
      const current = deployment !== undefined ? newest.get(deployment) : undefined;
      const age = revision && current ? (revision === current ? "new" : "old") : null;
      groups.set(id, { id, label: id, revision, age, pods: 0, ready: 0 });
    }
    const group = groups.get(id);
    const ready = pod.columns?.READY ?? "";
    const [up, all] = ready.split("/").map(Number);
    group.pods += 1;
    if (all > 0 && up === all) group.ready += 1;
    nodes.add(pod.node ?? null);
    const prefix = pod.owner?.name ? `${pod.owner.name}-` : "";
    pods.push({ name: pod.name, group: id, node: pod.node ?? null, status: pod.columns?.STATUS ?? "",
      ready, restarts: pod.columns?.RESTARTS ?? "", short: pod.name.startsWith(prefix) && prefix ? `…-${pod.name.slice(prefix.length)}` : pod.name });
  }
  const ordered = [...groups.values()].sort((a, b) =>
    (a.revision ?? 0) - (b.revision ?? 0) || a.id.localeCompare(b.id));
  const nodeList = [...nodes].sort((a, b) => (a === null) - (b === null) || String(a).localeCompare(String(b), "en", { numeric: true }));
  const ready = [];
  const terminating = [];
  let name = null;
  for (const slice of slices) {
    name ??= slice.metadata?.labels?.["kubernetes.io/service-name"] ?? null;
    for (const e of slice.endpoints || []) {
      const pod = e.targetRef?.kind === "Pod" ? e.targetRef.name : null;
      if (!pod) continue;
      if (e.conditions?.ready) ready.push(pod);
      else if (e.conditions?.serving && e.conditions?.terminating) terminating.push(pod);
    }
  }
  const service = cluster.traffic?.service ?? name;
  return { groups: ordered, nodes: nodeList, pods, service, serving: new Set(ready.length ? ready : terminating) };
}

/**
 * The requests through the Service in words. Requests made before any Pod was Ready (all
 * "no endpoint") are told apart: the Service was not serving yet, which is not a failure of
 * the run, nor of a rollout (the first rollout, revision 1, is not one to count).
 */
export function trafficHeadline(t) {
  const before = t.beforeReady ?? 0;
  const last = (t.rollouts || []).at(-1);
  let text = i18n.t("cluster.traffic", {
    service: t.service, sent: t.sent - before, failed: t.failed - before, none: t.noEndpoints - before,
  });
  if (before) text += " · " + i18n.t("cluster.beforeReady", { count: before });
  if (last && last.revision > 1) {
    text += " · " + i18n.t("cluster.rollout", { revision: last.revision, sent: last.sent, failed: last.failed });
  }
  return text;
}

// Requests per second over the last two minutes: a bar per second, failures in red on top.
function drawChart(svg, traffic) {
  svg.hidden = !traffic;
  if (!traffic) return;
  const rows = traffic.perSecond || [];
  const peak = Math.max(1, ...rows.map(([, ok, bad]) => ok + bad));
  const last = rows.length ? rows.at(-1)[0] : 0;
  svg.setAttribute("aria-label", i18n.t("cluster.chart", { failed: rows.reduce((n, r) => n + r[2], 0) }));
  fill(
    svg,
    rows.flatMap(([second, ok, bad]) => {
      const x = 119 - (last - second);
      const okHeight = (ok / peak) * 24;
      const badHeight = (bad / peak) * 24;
      return [
        s("rect", { class: "chart-ok", x, y: 24 - okHeight, width: 1, height: okHeight }),
        bad ? s("rect", { class: "chart-failed", x, y: 24 - okHeight - badHeight, width: 1,
          height: badHeight, dataset: { second: String(second) } }) : null,
      ];
    }),
  );
}

// What `kubectl` prints for the cluster, as a terminal would show the commands one after
// another; every text comes from the server.
function kubectlTranscript(views) {
  const parts = [];
  if (views.get) parts.push("$ kubectl get pods,rs,deploy,jobs,sts -o wide\n" + views.get);
  if (views.endpointslices) parts.push("$ kubectl get endpointslices\n" + views.endpointslices);
  if (views.watch) parts.push("$ kubectl get pods -w\n" + views.watch + "\n");
  for (const [name, text] of Object.entries(views.rolloutStatus || {})) {
    parts.push(`$ kubectl rollout status ${name}\n` + text);
  }
  for (const [ns, text] of Object.entries(views.daemonsets || {})) {
    parts.push(`$ kubectl get ds -n ${ns} -o wide\n` + text);
  }
  if (views.pdbs) parts.push("$ kubectl get pdb\n" + views.pdbs);
  if (views.storage) parts.push("$ kubectl get pvc,pv\n" + views.storage);
  for (const [name, text] of Object.entries(views.describe || {})) {
    parts.push(`$ kubectl describe ${name.replace("/", " ")}\n` + text);
  }
  for (const [node, text] of Object.entries(views.drains || {})) {
    const command = views.drainCommands?.[node] ?? `kubectl drain ${node} --ignore-daemonsets`;
    parts.push(`$ ${command}\n` + text);
  }
  return parts.join("\n");
}
