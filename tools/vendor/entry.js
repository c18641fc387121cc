// Everything the page uses from CodeMirror 6, in ONE bundle: two copies of
// @codemirror/state break its instanceof checks.
export { EditorState, Compartment, StateEffect, StateField } from "@codemirror/state";
export {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
  drawSelection, highlightSpecialChars,
} from "@codemirror/view";
export { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
export {
  syntaxHighlighting, defaultHighlightStyle, indentOnInput, bracketMatching,
} from "@codemirror/language";
export { yaml } from "@codemirror/lang-yaml";
export { linter, lintGutter, setDiagnostics, forceLinting, diagnosticCount } from "@codemirror/lint";
