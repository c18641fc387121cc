// Top bar: scenario picker, language switch, share link, your own kubectl, downloads.
import { logsText } from "./views.js";
import { h, emit, fill, setText } from "./dom.js";
import { t, lang, LANGS } from "./i18n.js";
import { registerMenu, registerPanel, opened } from "./menus.js";


const OFFER_KEY = "pod-playground.langOffer"; // sessionStorage: share ids whose offer was answered

export function mount(root, { editorText, shareId = "", shareLang = "" }) {
  let scenarios = [];
  let current = { scenario: null, lastPick: null };
  let latest = null;

  const picker = h("select", { id: "scenario-picker", class: "picker", on: { change: () => {
    const name = picker.value;
    if (name && name !== current.scenario) emit("pg:join", { scenario: name });
  } } });
  const pickerLabel = h("label", { for: "scenario-picker", class: "topbar-label", "data-i18n": "top.scenario" });

  // Each language's button names it in itself (marked with its lang), from its own catalogue.
  const langButtons = LANGS.map((code) =>
    h("button", { type: "button", class: "lang-button", lang: code === "zh" ? "zh-CN" : "en", dataset: { lang: code },
      on: { click: () => emit("pg:lang", { lang: code }) } }, t("lang.self", {}, code)));
  const langGroup = h("div", { class: "lang-switch", role: "group", "data-i18n-aria": "top.language" }, langButtons);

  const shareButton = h("button", { type: "button", id: "share", class: "button", "data-i18n": "top.share",
    on: { click: () => share() } });
  const shareOut = h("output", { class: "share-out", id: "share-out", "aria-live": "polite" });
  const shareLink = h("input", { class: "share-link", id: "share-link", readonly: true, "data-i18n-aria": "top.share" });
  const shareClose = h("button", { type: "button", class: "share-close", "data-i18n-aria": "top.share.close", "data-i18n-title": "top.share.close", on: { click: () => {
    sharePanel.hidden = true;
    shareButton.focus();
  } } }, "×");
  const sharePanel = h("div", { class: "share-panel", id: "share-panel", hidden: true }, shareOut, shareLink, shareClose);

  // "Use your own kubectl": this session's kubeconfig (POST /api/kubeconfig, docs/kubectl.md),
  // to copy or download, with the two lines that point kubectl at it.
  // A menu item of the top bar's last menu (the bar keeps its width: tests/e2e/test_page_fit.py).
  const kubectlButton = h("button", { type: "button", id: "kubectl", class: "menu-item", "data-i18n": "top.kubectl",
    on: { click: () => {
      downloadMenu.open = false;
      kubeconfig();
    } } });
  const kubectlOut = h("output", { class: "share-out", id: "kubectl-out", "aria-live": "polite" });
  const kubectlLines = h("pre", { class: "kubectl-lines", id: "kubectl-lines" });
  const kubectlText = h("textarea", { class: "kubectl-config", id: "kubectl-config", readonly: true, rows: 6, "data-i18n-aria": "top.kubectl" });
  const kubectlCopy = h("button", { type: "button", class: "button", id: "kubectl-copy", "data-i18n": "top.kubectl.copy",
    on: { click: () => copyKubeconfig() } });
  const kubectlDownload = h("button", { type: "button", class: "button", id: "kubectl-download", "data-i18n": "top.kubectl.download",
    on: { click: () => download("playground.kubeconfig", "application/yaml", kubectlText.value) } });
  const kubectlClose = h("button", { type: "button", class: "share-close", "data-i18n-aria": "top.kubectl.close", "data-i18n-title": "top.kubectl.close", on: { click: () => {
    kubectlPanel.hidden = true;
    downloadMenu.querySelector("summary").focus();
  } } }, "×");
  const kubectlIntro = h("p", { class: "kubectl-intro", "data-i18n": "top.kubectl.intro" });
  const kubectlPanel = h("div", { class: "share-panel kubectl-panel", id: "kubectl-panel", hidden: true },
    kubectlIntro, kubectlLines, kubectlText, h("div", { class: "kubectl-actions" }, kubectlCopy, kubectlDownload), kubectlOut, kubectlClose);

  const downloads = [
    ["top.download.yaml", "yaml", () => download(`${scenarioName()}.yaml`, "text/yaml", editorText())],
    ["top.download.trace", "trace", () => download(`${scenarioName()}-trace.json`, "application/json", traceJson())],
    ["top.download.transcript", "transcript", () => download(`${scenarioName()}-transcript.txt`, "text/plain", transcript())],
  ].map(([key, id, fn]) => h("button", { type: "button", class: "menu-item", id: `download-${id}`, "data-i18n": key, on: { click: () => {
    fn();
    downloadMenu.open = false;
  } } }));
  const downloadMenu = h("details", { class: "download" },
    h("summary", { class: "button", "data-i18n": "top.download" }),
    h("div", { class: "menu" }, downloads, kubectlButton));

  // One open at a time; Escape closes it and focuses what opened it (menus.js).
  registerMenu(downloadMenu);
  registerPanel(sharePanel, shareButton);
  registerPanel(kubectlPanel, downloadMenu.querySelector("summary"));
  // A share link made in the other language offers it (never switches by itself).
  const offerText = h("span", { class: "lang-offer-text" });
  const offerSwitch = h("button", { type: "button", class: "button button-primary", id: "lang-offer-switch",
    on: { click: () => answerOffer(true) } });
  const offerKeep = h("button", { type: "button", class: "button", id: "lang-offer-keep", on: { click: () => answerOffer(false) } });
  const offer = h("div", { class: "lang-offer", id: "lang-offer", role: "status", hidden: true }, offerText, offerSwitch, offerKeep);
  let offerAnswered = answered().includes(shareId);
  function answered() {
    try {
      return JSON.parse(sessionStorage.getItem(OFFER_KEY) || "[]");
    } catch {
      return [];
    }
  }
  function answerOffer(accept) {
    offerAnswered = true;
    offer.hidden = true;
    try {
      sessionStorage.setItem(OFFER_KEY, JSON.stringify([...answered(), shareId].slice(-20)));
    } catch {
      // the offer comes back on the next load
    }
    if (accept) emit("pg:lang", { lang: shareLang });
  }
  function showOffer() {
    const other = shareLang && shareLang !== lang() && !offerAnswered;
    offer.hidden = !other;
    if (!other) return;
    const name = (code) => t(`lang.name.${code}`);
    setText(offerText, t("lang.offer", { language: name(shareLang) }));
    // The button speaks the language it offers, so a reader of that language finds it.
    setText(offerSwitch, t("lang.offer.switch", {}, shareLang));
    offerSwitch.lang = shareLang === "zh" ? "zh-CN" : "en";
    setText(offerKeep, t("lang.offer.keep", { language: name(lang()) }));
  }

  root.append(
    h("div", { class: "topbar-group" }, pickerLabel, picker),
    langGroup,
    h("div", { class: "topbar-group" }, shareButton, downloadMenu),
    sharePanel,
    kubectlPanel,
    offer,
  );

  // The list in the page's language only (half the bytes); fetched again on a switch.
  let listLang = null;
  function fetchScenarios() {
    const wanted = lang();
    if (wanted === listLang) return;
    listLang = wanted;
    fetch(`/api/scenarios?lang=${encodeURIComponent(wanted)}`, { headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : []))
      .then((list) => {
        if (wanted !== listLang) return; // a newer switch asked for the other language
        scenarios = Array.isArray(list) ? list : [];
        fillPicker();
      })
      .catch(() => fillPicker());
  }
  fetchScenarios();

  function scenarioName() {
    return (latest?.scenario?.name || "scenario").replace(/[^\w.-]+/g, "-");
  }

  function fillPicker() {
    const language = lang();
    const options = scenarios.map((s) =>
      h("option", { value: s.name, title: s.description?.[language] ?? "" }, s.title?.[language] || s.title?.en || s.name));
    const known = scenarios.some((s) => s.name === current.scenario);
    if (!known) {
      const title = latest?.scenario?.title?.[language] || latest?.scenario?.title?.en;
      options.unshift(h("option", { value: current.scenario ?? "" }, title || t("top.scenario.custom")));
    }
    fill(picker, options);
    picker.value = current.scenario ?? "";
    current.lastPick = `${language}|${current.scenario}|${scenarios.length}`;
  }

  async function share() {
    if (!latest?.scenario) return;
    try {
      const response = await fetch("/api/share", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ yaml: latest.scenario.yaml ?? editorText(), actions: latest.actions, at: latest.now, lang: lang() }),
      });
      const data = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(data.message || data.error || String(response.status));
      const url = new URL(data.url, location.href).href;
      shareLink.value = url;
      sharePanel.hidden = false;
      opened(sharePanel);
      let copied = false;
      try {
        await navigator.clipboard.writeText(url);
        copied = true;
      } catch {
        shareLink.select();
      }
      setText(shareOut, t(copied ? "top.share.copied" : "top.share.ready"));
    } catch (error) {
      setText(shareOut, t("top.share.failed", { message: error.message }));
      sharePanel.hidden = false;
      opened(sharePanel);
    }
  }

  async function kubeconfig() {
    if (!latest?.session) return;
    try {
      const response = await fetch("/api/kubeconfig", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json", "Accept-Language": lang() },
        body: JSON.stringify({ session: latest.session }),
      });
      const data = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(data.message || String(response.status));
      kubectlText.value = data.kubeconfig;
      setText(kubectlLines, "export KUBECONFIG=$PWD/playground.kubeconfig\nkubectl get pods -w");
      setText(kubectlOut, "");
    } catch (error) {
      setText(kubectlOut, t("top.kubectl.failed", { message: error.message }));
    }
    kubectlPanel.hidden = false;
    opened(kubectlPanel);
  }

  async function copyKubeconfig() {
    try {
      await navigator.clipboard.writeText(kubectlText.value);
      setText(kubectlOut, t("top.kubectl.copied"));
    } catch {
      kubectlText.select();
    }
  }

  function traceJson() {
    const s = latest || {};
    return JSON.stringify({ scenario: s.scenario?.name ?? null, now: s.now, actions: s.actions, pod: s.pod,
      events: s.events, transitions: s.transitions, endpointSlices: s.endpointSlices }, null, 2);
  }

  function transcript() {
    const v = latest?.views || {};
    const logs = Object.values(v.logs?.containers || {})
      .flatMap((entry) => [entry.current, entry.previous].filter((run) => run && (run.lines?.length || !run.stderr.includes("previous terminated"))))
      .map((run) => `\n\n${logsText(run)}`).join("");
    return `$ kubectl get pods -w\n${v.watch || ""}\n\n$ kubectl get events\n${v.events || ""}${logs}\n`;
  }

  return {
    update(state) {
      latest = state;
      const name = state.scenario?.name ?? null;
      for (const b of langButtons) b.setAttribute("aria-pressed", String(b.dataset.lang === lang()));
      showOffer();
      fetchScenarios();
      if (name !== current.scenario || current.lastPick !== `${lang()}|${name}|${scenarios.length}`) {
        current.scenario = name;
        fillPicker();
      }
      shareButton.disabled = !state.scenario;
      kubectlButton.disabled = !state.session || Boolean(state.session?.startsWith?.("class-"));
    },
  };
}

function download(filename, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h("a", { href: url, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
