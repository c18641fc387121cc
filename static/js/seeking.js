// A far seek computed in slices (webapp/sessions/slices.py): while the snapshot or ticks
// carry `seeking: {target, reached}`, a progress bar shows how far the run got, with a
// "Stop here" button that ends the seek at the moment reached (`clock {op: "stop"}`).
import { h, setText, emit } from "./dom.js";
import { t, seconds } from "./i18n.js";

/** {fraction, label} for `seeking`, or null when no seek is under way. */
export function seekingModel(seeking) {
  if (!seeking || !(seeking.target > 0)) return null;
  const fraction = Math.max(0, Math.min(1, seeking.reached / seeking.target));
  return { fraction, target: seeking.target, reached: seeking.reached };
}

export function mount(root) {
  const bar = h("progress", { id: "seek-progress", max: "1", value: "0" });
  const label = h("span", { id: "seek-label", class: "seek-label", "aria-live": "polite" });
  const stop = h("button", { id: "seek-stop", type: "button", class: "btn",
    on: { click: () => emit("pg:clock", { op: "stop" }) } });
  const box = h("div", { id: "seeking", class: "seeking", hidden: true }, label, bar, stop);
  root.append(box);
  return {
    update(state) {
      const model = seekingModel(state.seeking);
      box.hidden = !model;
      if (!model) return;
      bar.value = model.fraction;
      bar.setAttribute("aria-label", t("seek.progress", { reached: seconds(model.reached), target: seconds(model.target) }));
      setText(label, t("seek.progress", { reached: seconds(model.reached), target: seconds(model.target) }));
      setText(stop, t("seek.stop"));
      stop.title = t("seek.stop.title");
    },
  };
}
