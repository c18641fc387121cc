// The cluster strip of a workload scenario: every Pod (name, STATUS, READY, node) grouped
// by its owner, and the requests through the Service. Clicking a Pod makes it the focus:
// the diagram and the per-Pod views follow it (the server's `focus` action). Hidden for a
// Pod scenario (no `cluster` in the state). Everything shown comes from the server.
import { h, s, fill, emit } from "./dom.js";
import * as i18n from "./i18n.js";

export function mount(root) {
  const list = h("div", { class: "cluster-pods", role: "list" });
  const traffic = h("p", { class: "cluster-traffic" });
  const chart = s("svg", { class: "cluster-chart", viewBox: "0 0 120 24", preserveAspectRatio: "none",
    role: "img" });
  const kubectlPre = h("pre", { class: "kubectl cluster-kubectl", id: "cluster-kubectl" });
  const details = h("details", { class: "cluster-details" },
    h("summary", { "data-i18n": "cluster.kubectl" }, i18n.t("cluster.kubectl")), kubectlPre);
  root.append(list, traffic, chart, details);
  let key = "";
  let kubectlText = "";

  function update(state) {
    const cluster = state.cluster;
    root.hidden = !cluster;
    document.body.dataset.cluster = cluster ? "true" : "false";
    if (!cluster) {
      key = "";
      return;
    }
    const text = kubectlTranscript(cluster.views || {});
    if (text !== kubectlText) {
      kubectlText = text;
      kubectlPre.textContent = text;
    }
    const next = JSON.stringify([cluster.pods, cluster.focus, cluster.traffic, i18n.lang()]);
    if (next === key) return;
    key = next;
    const groups = new Map();
    for (const pod of cluster.pods || []) {
      const owner = pod.owner ? `${pod.owner.kind}/${pod.owner.name}` : "";
      if (!groups.has(owner)) groups.set(owner, []);
      groups.get(owner).push(pod);
    }
    fill(
      list,
      [...groups].map(([owner, pods]) =>
        h(
          "div",
          { class: "cluster-group", role: "listitem" },
          h("span", { class: "cluster-owner" }, owner),
          pods.map((pod) =>
            h(
              "button",
              {
                type: "button",
                class: ["cluster-pod", pod.name === cluster.focus && "is-focus"],
                dataset: { pod: pod.name, status: pod.columns?.STATUS ?? "" },
                "aria-pressed": pod.name === cluster.focus ? "true" : "false",
                title: i18n.t("cluster.focus", { pod: pod.name }),
                on: { click: () => emit("pg:act", { action: "focus", name: pod.name }) },
              },
              h("span", { class: "cluster-pod-name" }, pod.name),
              h("span", { class: "cluster-pod-status" }, pod.columns?.STATUS ?? ""),
              h("span", { class: "cluster-pod-ready" }, pod.columns?.READY ?? ""),
              h("span", { class: "cluster-pod-node" }, pod.node ?? ""),
            ),
          ),
        ),
      ),
    );
    const t = cluster.traffic;
    traffic.hidden = !t;
    if (t) {
      traffic.textContent = trafficHeadline(t);
      traffic.dataset.failed = String(t.failed);
    }
    drawChart(chart, t);
  }

  return { update };
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
  if (views.pdbs) parts.push("$ kubectl get pdb\n" + views.pdbs);
  for (const [name, text] of Object.entries(views.describe || {})) {
    parts.push(`$ kubectl describe ${name.replace("/", " ")}\n` + text);
  }
  for (const [node, text] of Object.entries(views.drains || {})) {
    parts.push(`$ kubectl drain ${node} --ignore-daemonsets\n` + text);
  }
  return parts.join("\n");
}
