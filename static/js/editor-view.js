// The YAML editor's CodeMirror 6 view (the largest module of the page, ~100 KB compressed):
// editor.js imports this file only when the editor is first used (a focus, a press, a key,
// an error to underline), so a visit that only watches never downloads it (issue 23).
import {
  EditorState, EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
  drawSelection, highlightSpecialChars, defaultKeymap, history, historyKeymap,
  syntaxHighlighting, defaultHighlightStyle, indentOnInput, bracketMatching, yaml, lintGutter,
  setDiagnostics, Compartment,
} from "/static/vendor/codemirror.bundle.js";

// Chromium's own editing, replacing a selection that spans elements (lines, highlighted
// tokens) with text typed, inserted or composed by an input method, merges the elements and
// writes style="" attributes to keep their look: under the page's CSP (style-src 'self')
// each one is a violation (issue 27). So a selection is replaced by the editor itself:
// typed or inserted text in one transaction (beforeinput is cancelable for those), and
// before a composition starts the selection is deleted, so the input method composes at
// a caret, where the browser only adds text.
const replaceSelectionsOurselves = EditorView.domEventHandlers({
  beforeinput(event, view) {
    if (event.inputType !== "insertText" && event.inputType !== "insertReplacementText") return false;
    if (view.state.selection.ranges.every((r) => r.empty)) return false;
    const text = event.data ?? event.dataTransfer?.getData("text/plain");
    if (text == null) return false;
    event.preventDefault();
    view.dispatch(view.state.replaceSelection(text), { scrollIntoView: true, userEvent: "input.type" });
    return true;
  },
  compositionstart(event, view) {
    if (view.state.selection.ranges.every((r) => r.empty)) return false;
    view.dispatch(view.state.replaceSelection(""), { userEvent: "delete.selection" });
    return false;
  },
});

/** The view in `parent` (inside `root`, the editor's shadow root) with `doc` and the caret at
 * `anchor`; `onChange(typed)` after every change of the text, `onApply` for Mod-Enter. */
export function createView({ parent, root, doc, anchor, label, onChange, onApply }) {
  const labelled = new Compartment();
  let loading = false; // text put in by the page, not typed
  const view = new EditorView({
    parent,
    root,
    state: EditorState.create({
      doc,
      selection: { anchor: Math.min(anchor ?? 0, doc.length) },
      extensions: [
        lineNumbers(), highlightActiveLineGutter(), highlightSpecialChars(), history(), drawSelection(),
        indentOnInput(), syntaxHighlighting(defaultHighlightStyle, { fallback: true }), bracketMatching(),
        highlightActiveLine(), yaml(), lintGutter(), replaceSelectionsOurselves,
        keymap.of([{ key: "Mod-Enter", run: () => (onApply(), true) }, ...defaultKeymap, ...historyKeymap]),
        labelled.of(EditorView.contentAttributes.of({ "aria-label": label })),
        EditorView.updateListener.of((update) => {
          if (update.docChanged && !loading) onChange();
        }),
      ],
    }),
  });
  // The caret where it was in the text area, in sight.
  view.dispatch({ selection: view.state.selection, scrollIntoView: true });
  return {
    text: () => view.state.doc.toString(),
    focus: () => view.focus(),
    relabel(text) {
      view.dispatch({ effects: labelled.reconfigure(EditorView.contentAttributes.of({ "aria-label": text })) });
    },
    replace(value) {
      loading = true;
      try {
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: value } });
      } finally {
        loading = false;
      }
    },
    /** errors: [{line, column, message}] -> lint diagnostics at their tokens. */
    diagnose(errors) {
      const diagnostics = errors.map((e) => {
        const { from, to } = range(view.state.doc, e.line, e.column);
        return { from, to, severity: "error", message: e.message, source: "playground" };
      });
      view.dispatch(setDiagnostics(view.state, diagnostics));
    },
    goTo(line, column) {
      const { from } = range(view.state.doc, line, column);
      view.dispatch({ selection: { anchor: from }, scrollIntoView: true });
      view.focus();
    },
  };
}

/** Document offsets of the token at a 1-based line and column (to the end of the line's text). */
export function range(doc, line, column) {
  const n = Math.min(Math.max(1, line || 1), doc.lines);
  const l = doc.line(n);
  const from = Math.min(l.from + Math.max(0, (column || 1) - 1), l.to);
  const rest = l.text.slice(from - l.from);
  return { from, to: Math.min(l.to, from + Math.max(1, rest.trimEnd().length)) };
}
