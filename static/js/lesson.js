// The scenario's lesson: its title and description, then each step as it is reached.
import { h, fill, setText } from "./dom.js";
import { t, lang, seconds } from "./i18n.js";
import { lessonModel } from "./state.js";

// `code` in a lesson's text (a command to type) as <code>; the rest as text. Only text nodes
// are made: a lesson's words never become markup.
function inline(text) {
  return String(text).split("`").map((part, i) => (i % 2 ? h("code", {}, part) : part));
}

export function mount(root) {
  const title = h("p", { class: "lesson-title", id: "lesson-title" });
  const description = h("p", { class: "lesson-description" });
  const steps = h("ol", { class: "lesson-steps", id: "lesson-steps", "aria-live": "polite" });
  const waiting = h("p", { class: "lesson-waiting hint" });
  root.append(title, description, steps, waiting);
  let shown = "";
  // The current step is never cut: its list keeps at least its height (layout.css), the
  // step sticks to the list's bottom while earlier ones scroll above it.
  const fit = () => {
    const latest = steps.querySelector(".is-latest");
    steps.style.setProperty("--lesson-current", `${latest ? Math.ceil(latest.getBoundingClientRect().height) : 0}px`);
  };
  const sizes = typeof ResizeObserver === "function" ? new ResizeObserver(fit) : null;

  const hintsShown = new Map(); // task index -> how many of its hints are shown
  let last = null;
  const taskItem = (s, language, latest) => {
    const shown = hintsShown.get(s.index) || 0;
    const more = s.hints.length > shown && !s.done;
    const hintButton = more
      ? h("button", { type: "button", class: "lesson-hint-button", dataset: { task: s.index } },
          t("lesson.hint", { n: shown + 1, count: s.hints.length }))
      : null;
    hintButton?.addEventListener("click", () => {
      hintsShown.set(s.index, shown + 1);
      if (last) render(last, true);
    });
    return h("li", { class: ["lesson-step", "lesson-task", s.done && "is-done", latest && "is-latest"], dataset: { index: s.index } },
      h("span", { class: "lesson-when" }, s.done ? t("lesson.taskDone") : t("lesson.task")),
      h("span", { class: "lesson-text" }, ...inline(s.text[language] || s.text.en || "")),
      ...s.hints.slice(0, shown).map((hint) => h("span", { class: "lesson-hint" }, ...inline(hint[language] || hint.en || ""))),
      hintButton);
  };
  const render = (state, force = false) => {
      last = state;
      const language = lang();
      const model = lessonModel(state);
      const reached = model.filter((s) => s.reached);
      const key = JSON.stringify([language, state.scenario?.name, reached.map((s) => [s.index, s.done]), [...hintsShown]]);
      if (key === shown && !force) return;
      shown = key;
      const scenario = state.scenario;
      setText(title, scenario?.title?.[language] || scenario?.title?.en || "");
      setText(description, scenario?.description?.[language] || scenario?.description?.en || "");
      const latest = reached.at(-1)?.index;
      fill(steps, reached.map((s) => s.task ? taskItem(s, language, s.index === latest) :
        h("li", { class: ["lesson-step", s.index === latest && "is-latest"], dataset: { index: s.index } },
          h("span", { class: "lesson-when" }, s.at !== null ? t("lesson.at", { t: seconds(s.at) }) : t("lesson.when", { when: s.when })),
          h("span", { class: "lesson-text" }, ...inline(s.text[language] || s.text.en || "")))));
      const pending = reached.at(-1);
      setText(waiting, !model.length ? t("lesson.none")
        : pending?.task && !pending.done ? t("lesson.taskWaiting")
        : reached.length < model.length ? t("lesson.waiting") : "");
      sizes?.disconnect();
      if (steps.lastElementChild) sizes?.observe(steps.lastElementChild);
      fit();
      steps.scrollTop = steps.scrollHeight;
  };
  return {
    update(state) {
      if (last && state.scenario?.name !== last.scenario?.name) hintsShown.clear();
      render(state);
    },
  };
}
