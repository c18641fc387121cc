// The page's columns on a wide screen: splitters between the three columns (drag them, or
// focus one and use the arrow keys; Enter folds the column, a double click resets) and
// between editor and lesson, status and views. What the learner set is remembered in
// localStorage. Under 1000 px the page is one column and the splitters are hidden (CSS).
import { h, setText } from "./dom.js";
import { t } from "./i18n.js";

const STORAGE_KEY = "pod-playground.layout";
export const DEFAULTS = Object.freeze({ left: 28, right: 30, leftCollapsed: false, rightCollapsed: false, editor: 45, status: 55 });
// Columns in percent of the page's width, rows in percent of their column.
const LIMITS = { left: [15, 50], right: [18, 50], editor: [15, 85], status: [15, 85] };
const CENTER_MIN = 25;

/** A stored layout made safe: unknown keys dropped, numbers clamped, the centre kept usable. */
export function normalizeLayout(value) {
  const out = { ...DEFAULTS };
  const given = value && typeof value === "object" ? value : {};
  for (const key of Object.keys(LIMITS)) {
    const n = Number(given[key]);
    if (Number.isFinite(n)) out[key] = Math.min(LIMITS[key][1], Math.max(LIMITS[key][0], n));
  }
  out.leftCollapsed = given.leftCollapsed === true;
  out.rightCollapsed = given.rightCollapsed === true;
  const excess = out.left + out.right - (100 - CENTER_MIN);
  if (excess > 0) out.right = Math.max(LIMITS.right[0], out.right - excess);
  return out;
}

function load() {
  try {
    return normalizeLayout(JSON.parse(localStorage.getItem(STORAGE_KEY) || "null"));
  } catch {
    return { ...DEFAULTS };
  }
}

function save(layout) {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(layout));
  } catch {
    // the layout lasts for this page only
  }
}

export function mount(root) {
  let layout = load();
  const cols = { left: root.querySelector(".col-left"), center: root.querySelector(".col-center"), right: root.querySelector(".col-right") };
  const editor = root.querySelector("#editor");
  const lesson = root.querySelector("#lesson");
  const status = root.querySelector("#status");
  const views = root.querySelector("#views");

  const splitters = [];
  function splitter({ key, orientation, className, label, controls, collapse }) {
    const el = h("div", { class: ["splitter", `splitter-${orientation === "vertical" ? "col" : "row"}`, className],
      role: "separator", tabindex: "0", "aria-orientation": orientation, "aria-controls": controls,
      "aria-valuemin": String(LIMITS[key][0]), "aria-valuemax": String(LIMITS[key][1]), dataset: { key } });
    let toggle = null;
    if (collapse) {
      toggle = h("button", { type: "button", class: "split-toggle", dataset: { side: collapse },
        on: { click: (event) => {
          event.stopPropagation();
          setCollapsed(collapse, !layout[`${collapse}Collapsed`]);
        } } });
      el.append(toggle);
    }
    el.addEventListener("pointerdown", (event) => {
      if (event.target === toggle || event.button !== 0) return;
      event.preventDefault();
      el.setPointerCapture(event.pointerId);
      el.classList.add("is-dragging");
      const move = (e) => dragTo(key, e);
      const up = () => {
        el.classList.remove("is-dragging");
        el.removeEventListener("pointermove", move);
        el.removeEventListener("pointerup", up);
        el.removeEventListener("pointercancel", up);
        save(layout);
      };
      el.addEventListener("pointermove", move);
      el.addEventListener("pointerup", up);
      el.addEventListener("pointercancel", up);
    });
    el.addEventListener("dblclick", () => set(key, DEFAULTS[key]));
    el.addEventListener("keydown", (event) => {
      const sign = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 }[event.key];
      // For the right column (and the lower panel) "grow" is towards the left / the top.
      const towards = key === "right" ? -1 : 1;
      if (sign) {
        event.preventDefault();
        if (collapse && layout[`${collapse}Collapsed`]) setCollapsed(collapse, false);
        else set(key, layout[key] + sign * towards * (event.shiftKey ? 10 : 2));
      } else if (event.key === "Home" || event.key === "End") {
        event.preventDefault();
        set(key, LIMITS[key][event.key === "Home" ? 0 : 1]);
      } else if (event.key === "Enter" && collapse) {
        event.preventDefault();
        setCollapsed(collapse, !layout[`${collapse}Collapsed`]);
      }
    });
    splitters.push({ el, key, label, toggle, collapse });
    return el;
  }

  function dragTo(key, event) {
    if (key === "left" || key === "right") {
      const box = root.getBoundingClientRect();
      const x = ((event.clientX - box.left) / box.width) * 100;
      set(key, key === "left" ? x : 100 - x, { persist: false });
    } else {
      const [top, bottom] = key === "editor" ? [editor, lesson] : [status, views];
      const a = top.getBoundingClientRect();
      const b = bottom.getBoundingClientRect();
      set(key, ((event.clientY - a.top) / (b.bottom - a.top)) * 100, { persist: false });
    }
  }

  function set(key, value, { persist = true } = {}) {
    layout = normalizeLayout({ ...layout, [key]: value });
    apply();
    if (persist) save(layout);
  }

  function setCollapsed(side, on) {
    layout = { ...layout, [`${side}Collapsed`]: on };
    apply();
    save(layout);
  }

  function apply() {
    root.style.setProperty("--left-w", String(layout.leftCollapsed ? 0 : layout.left));
    root.style.setProperty("--right-w", String(layout.rightCollapsed ? 0 : layout.right));
    root.classList.toggle("is-left-collapsed", layout.leftCollapsed);
    root.classList.toggle("is-right-collapsed", layout.rightCollapsed);
    editor.style.flexGrow = String(layout.editor);
    lesson.style.flexGrow = String(100 - layout.editor);
    status.style.flexGrow = String(layout.status);
    views.style.flexGrow = String(100 - layout.status);
    for (const s of splitters) {
      s.el.setAttribute("aria-valuenow", String(Math.round(layout[s.key])));
      if (s.toggle) {
        const folded = layout[`${s.collapse}Collapsed`];
        // The arrow points where the column goes (fold) or comes from (unfold).
        setText(s.toggle, (s.collapse === "left") === folded ? "›" : "‹");
        s.toggle.setAttribute("aria-expanded", String(!folded));
        s.toggle.setAttribute("aria-controls", cols[s.collapse].id);
      }
    }
    translate();
  }

  function translate() {
    for (const s of splitters) {
      s.el.setAttribute("aria-label", t(s.label));
      s.el.title = t("layout.splitter.title");
      if (s.toggle) {
        const folded = layout[`${s.collapse}Collapsed`];
        const words = t(`layout.${folded ? "expand" : "collapse"}.${s.collapse}`);
        s.toggle.setAttribute("aria-label", words);
        s.toggle.title = words;
      }
    }
  }

  cols.left.id ||= "col-left";
  cols.right.id ||= "col-right";
  cols.left.after(splitter({ key: "left", orientation: "vertical", className: "split-left", label: "layout.resize.left", controls: cols.left.id, collapse: "left" }));
  cols.center.after(splitter({ key: "right", orientation: "vertical", className: "split-right", label: "layout.resize.right", controls: cols.right.id, collapse: "right" }));
  editor.after(splitter({ key: "editor", orientation: "horizontal", label: "layout.resize.editor", controls: "editor lesson" }));
  status.after(splitter({ key: "status", orientation: "horizontal", label: "layout.resize.status", controls: "status views" }));
  apply();
  return { update: translate, layout: () => ({ ...layout }) };
}
