// The Pod's status panel: phase, kubectl STATUS, conditions, each container's state, the
// explanation of every status and reason shown, and where Kubernetes surprises people.
import { h, fill, setText } from "./dom.js";
import { t, lang, seconds } from "./i18n.js";
import { statusModel } from "./state.js";
import { explain } from "./explain.js";

export function mount(root) {
  // Announced to screen readers when the status changes; the facts below show it on screen.
  const summary = h("p", { class: "status-summary visually-hidden", id: "status-summary", role: "status", "aria-live": "polite" });
  const body = h("div", { class: "status-body" });
  root.append(summary, body);
  let shown = "";

  return {
    update(state) {
      const model = statusModel(state);
      const key = JSON.stringify([lang(), model]);
      if (key === shown) return;
      shown = key;
      if (!model.present) {
        setText(summary, state.lastPod || state.session ? t("status.nopod") : "");
        // Said on screen too: an empty panel after the removal looks like a broken page.
        const name = state.lastPod?.metadata?.name;
        fill(body, name
          ? h("div", { class: "status-gone", id: "status-gone" },
            h("p", {}, t("status.gone", { name })),
            h("pre", { class: "kubectl kubectl-inline" }, `$ kubectl get pod ${name}\nError from server (NotFound): pods "${name}" not found`))
          : state.session ? h("p", { class: "hint" }, t("status.nopod")) : null);
        return;
      }
      setText(summary, `${model.name}: ${t("status.phase")} ${model.phase ?? "?"} · ${t("status.kubectl")} ${model.kubectlStatus ?? "?"}`);
      fill(body,
        h("dl", { class: "status-facts" },
          fact("status.phase", model.phase, "phase"),
          fact("status.kubectl", model.kubectlStatus, "kubectl-status"),
          fact("status.ready", model.ready, "ready"),
          fact("status.restarts", model.restarts, "restarts"),
          fact("status.node", model.node, "node")),
        surprises(model),
        explanations(model),
        h("h3", { class: "sub-title" }, t("status.containers")),
        h("ul", { class: "container-list", id: "container-list" }, model.containers.map(containerCard)),
        h("h3", { class: "sub-title" }, t("status.conditions")),
        conditionsTable(model.conditions));
    },
  };
}

function fact(key, value, id) {
  return h("div", { class: "fact", dataset: { fact: id } },
    h("dt", {}, t(key)),
    h("dd", { class: ["fact-value", tone(value)] }, value ?? "—"));
}

/** Colour class for a status word; the word itself is always shown too. */
export function tone(value) {
  if (!value) return "tone-none";
  if (/CrashLoop|Err|Error|Fail|OOM|BackOff|Unknown|Unschedulable|NotReady|Evicted|NodeLost/i.test(value)) return "tone-bad";
  if (/Pending|Init|Creating|Terminating|Waiting|PodInitializing/i.test(value)) return "tone-warn";
  if (/Running|Succeeded|Completed|True/i.test(value)) return "tone-ok";
  return "tone-none";
}

function surprises(model) {
  if (!model.surprises.length) return null;
  return h("div", { class: "surprises", id: "surprises" }, model.surprises.map((x) =>
    h("p", { class: "surprise", dataset: { surprise: x.key.replace("surprise.", "") } },
      h("strong", { class: "surprise-title" }, `⚠ ${t("surprise.heading")}: `),
      t(x.key, x.params || {}))));
}

function explanations(model) {
  const entries = [];
  for (const reason of model.reasons) {
    for (const e of explain(reason, lang(), { pod: model.name })) if (!entries.some((x) => x.key === e.key)) entries.push(e);
  }
  if (!entries.length) return null;
  return h("section", { class: "explanations", id: "explanations", "aria-label": t("explain.heading") },
    h("h3", { class: "sub-title" }, t("explain.heading")),
    entries.slice(0, 4).map((e) => h("div", { class: "explanation", dataset: { reason: e.key } },
      h("p", { class: "explanation-reason" }, h("code", { class: tone(e.reason) }, e.reason)),
      h("p", {}, h("strong", {}, `${t("explain.means")}: `), e.means),
      h("p", {}, h("strong", {}, `${t("explain.check")}: `), e.check))));
}

function containerCard(c) {
  const stateWord = c.state ? t(`state.${c.state}`) : t("state.none");
  return h("li", { class: ["container-card", `is-${c.state ?? "none"}`], dataset: { container: c.name } },
    h("p", { class: "container-head" },
      // The kind first, as a label, then the name: "app container  app", never "app app".
      h("span", { class: "container-kind" }, t(`status.container.kind.${c.kind}`)),
      h("code", { class: "container-name" }, c.name),
      h("span", { class: ["container-state", tone(c.reason || (c.state === "running" ? "Running" : c.state === "waiting" ? "Waiting" : c.state))] },
        stateWord, c.reason ? ` · ${c.reason}` : ""),
    ),
    h("p", { class: "container-facts" },
      c.exitCode !== null ? `${t("status.container.exitCode")} ${c.exitCode} · ` : "",
      `${t("status.container.restarts")} ${c.restarts} · ${t("status.container.ready")} ${t(c.ready ? "status.yes" : "status.no")}`,
      c.last ? ` · ${t("status.container.last")}: ${t(`state.${c.last.state}`)}${c.last.reason ? ` ${c.last.reason}` : ""}${c.last.exitCode !== null ? ` (${c.last.exitCode})` : ""}` : ""),
    // The API's own words, verbatim (English in every Kubernetes): marked as such.
    c.message ? h("p", { class: "container-message", lang: "en" }, c.message) : null);
}

function conditionsTable(conditions) {
  const word = (status) => t(status === "True" ? "status.true" : status === "False" ? "status.false" : "status.unknown");
  return h("table", { class: "conditions", id: "conditions" },
    h("thead", {}, h("tr", {}, ["status.condition.type", "status.condition.status", "status.condition.since", "status.condition.reason"]
      .map((k) => h("th", { scope: "col" }, t(k))))),
    h("tbody", {}, conditions.map((c) => h("tr", { dataset: { condition: c.type } },
      h("th", { scope: "row" }, c.type),
      h("td", { class: tone(c.status === "True" ? "True" : c.status === "False" ? "NotReady" : "Unknown") }, `${c.status === "True" ? "✓" : c.status === "False" ? "✗" : "?"} ${word(c.status)}`),
      h("td", {}, c.since === null ? "—" : seconds(c.since)),
      h("td", { title: c.message ?? "", lang: "en" }, c.reason ?? "")))));
}
