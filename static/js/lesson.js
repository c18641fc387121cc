// The scenario's lesson: its title and description, then each step as it is reached.
import { h, fill, setText } from "./dom.js";
import { t, lang, seconds } from "./i18n.js";
import { lessonModel } from "./state.js";

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

  return {
    update(state) {
      const language = lang();
      const model = lessonModel(state);
      const reached = model.filter((s) => s.reached);
      const key = JSON.stringify([language, state.scenario?.name, reached.map((s) => s.index)]);
      if (key === shown) return;
      shown = key;
      const scenario = state.scenario;
      setText(title, scenario?.title?.[language] || scenario?.title?.en || "");
      setText(description, scenario?.description?.[language] || scenario?.description?.en || "");
      const last = reached.at(-1)?.index;
      fill(steps, reached.map((s) =>
        h("li", { class: ["lesson-step", s.index === last && "is-latest"], dataset: { index: s.index } },
          h("span", { class: "lesson-when" }, s.at !== null ? t("lesson.at", { t: seconds(s.at) }) : t("lesson.when", { when: s.when })),
          h("span", { class: "lesson-text" }, s.text[language] || s.text.en || ""))));
      setText(waiting, !model.length ? t("lesson.none") : reached.length < model.length ? t("lesson.waiting") : "");
      sizes?.disconnect();
      if (steps.lastElementChild) sizes?.observe(steps.lastElementChild);
      fit();
      steps.scrollTop = steps.scrollHeight;
    },
  };
}
