// What each container does, as the server's process model derived it from the image and
// the command: a plain description, what PID 1 does with the stop signal, the fields the
// Simulation document overrides, and located warnings for what is not modelled.
import { h, fill, setText } from "./dom.js";
import { t, lang } from "./i18n.js";
import { goToLine } from "./editor.js";

export function mount(root) {
  const heading = h("h3", { class: "sub-title", id: "derived-heading", "data-i18n": "derived.heading" });
  const intro = h("p", { class: "hint", "data-i18n": "derived.intro" });
  const list = h("div", { class: "derived-list", id: "derived" });
  const box = h("details", { class: "derived", open: true, "aria-labelledby": "derived-heading" },
    h("summary", {}, heading), intro, list);
  root.append(box);
  let shown = null;
  return {
    update(state) {
      const containers = state.scenario?.containers || [];
      const key = JSON.stringify([lang(), containers]);
      if (key === shown) return;
      shown = key;
      const language = lang();
      if (!containers.length) {
        fill(list, h("p", { class: "hint" }, t("views.empty")));
        return;
      }
      fill(list, containers.map((c) => h("section", { class: "derived-container", dataset: { container: c.name } },
        h("h4", { class: "derived-name" }, h("code", {}, c.name), " ",
          h("span", { class: "derived-kind" }, t(`derived.kind.${c.kind}`)), " ",
          h("span", { class: "derived-image" }, c.image)),
        h("p", { class: "derived-argv" }, h("code", {}, c.argv.join(" "))),
        h("p", { class: "derived-summary" }, c.summary?.[language] ?? c.summary?.en ?? ""),
        h("p", { class: "derived-stop" }, c.stop?.[language] ?? c.stop?.en ?? ""),
        c.overrides?.length
          ? h("p", { class: "derived-overrides" }, t("derived.overrides", { fields: c.overrides.join(", ") }))
          : null,
        c.warnings?.length
          ? h("ul", { class: "derived-warnings" }, c.warnings.map((w) => h("li", { class: "derived-warning", dataset: { code: w.code } },
            w.line
              ? h("button", { type: "button", class: "error-goto", on: { click: () => goToLine(w.line) },
                "aria-label": t("derived.goto", { line: w.line }) }, t("derived.line", { line: w.line }))
              : null,
            " ", h("span", { class: "derived-where" }, `(${w.where?.[language] ?? w.where?.en ?? ""})`), " ",
            h("span", { class: "derived-text" }, w.text?.[language] ?? w.text?.en ?? ""))))
          : null)));
    },
  };
}
