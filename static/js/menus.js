// The top bar's menus and panels (Download ▾, Class ▾, the Share panel): one open at a time;
// Escape, wherever the focus is, closes the open one and gives the focus back to what opened
// it; a click elsewhere closes a menu. A menu is a <details> (its <summary> opens it); a
// panel is any element with an opener button, shown and hidden with its `hidden` property.

const entries = []; // { el, opener, isOpen(), close() }

function entryOf(el) {
  return entries.find((e) => e.el === el);
}

/** Close every open menu and panel but `except`. */
export function closeOthers(except = null) {
  for (const e of entries) if (e.el !== except && e.isOpen()) e.close();
}

/** A <details> menu: its <summary> is its opener. */
export function registerMenu(details) {
  install();
  if (entryOf(details)) return;
  const entry = {
    el: details,
    opener: details.querySelector(":scope > summary"),
    isOpen: () => details.open,
    close: () => {
      details.open = false;
    },
  };
  entries.push(entry);
  details.addEventListener("toggle", () => {
    if (details.open) closeOthers(details);
  });
}

/** A panel shown by `opener`: call `opened(panel)` when the page shows it. */
export function registerPanel(panel, opener) {
  install();
  if (entryOf(panel)) return;
  entries.push({
    el: panel,
    opener,
    isOpen: () => !panel.hidden,
    close: () => {
      panel.hidden = true;
    },
  });
}

export function opened(panel) {
  closeOthers(panel);
}

function openEntry() {
  return entries.find((e) => e.isOpen()) ?? null;
}

// Installed with the first menu (the module is also imported by Node tests, without a DOM).
let installed = false;
function install() {
  if (installed) return;
  installed = true;
  document.addEventListener("keydown", onKey);
  document.addEventListener("pointerdown", onPointer);
}

function onKey(event) {
  if (event.key !== "Escape" || event.defaultPrevented) return;
  const open = openEntry();
  if (!open) return;
  // The editor's own Escape (closing its tooltips) comes first when the focus is in it.
  event.preventDefault();
  const focusWasInside = open.el.contains(document.activeElement) || document.activeElement === open.opener;
  closeOthers();
  if (focusWasInside || document.activeElement === document.body) open.opener?.focus();
}

function onPointer(event) {
  for (const e of entries) {
    if (!e.isOpen() || e.el.contains(event.target) || e.opener?.contains(event.target)) continue;
    // Menus close on a click elsewhere; the Share panel (a link to copy) stays until closed.
    if (e.el.tagName === "DETAILS") e.close();
  }
}
