// The arbiter's actions (docs/trace-format.md: start_clock, stop_clock, restore, impose_count,
// adjudicate, note, correct_result) as a form posting to /api/arbiter; shared by the console and
// the simulator. After the result the board still takes a note and a result corrected with its
// reason (COMP 6.16).
import { api, h } from "./live.js";
import { _, fmt } from "./i18n.js";

/** The results offered before the game's variant is known: the common set (engine/variants.py). */
const RESULTS = ["1-0", "1/2-1/2", "0-1"];

/** Fill `container` with the action buttons; `report(text, ok)` is told each answer.
 * Returns {setResults(list)}: the results the adjudication offers, the variant's own set
 * (state.metadata.results: 1-0 1/2-1/2 0-1, or 2-0 1-1 0-2 in international draughts).
 * `context()` gives what each action names: `{game, seen}` (the game shown and the last journal
 * line seen), so that the board refuses it for another game or a position moved on. */
export function arbiterActions(container, report, context = () => ({})) {
  async function send(action) {
    const body = { ...action, ...context() };
    try {
      const answer = await api("api/arbiter", body);
      report(fmt(_("{action}: journaled as line {line}"), { action: body.action, line: answer.line }), true);
    } catch (e) {
      report(fmt(_("{action} refused: {error}"), { action: body.action, error: e.message }), false);
    }
  }
  const simple = [["start_clock", _("Start clock")], ["stop_clock", _("Stop clock")],
    ["restore", _("Restore position (IT 7.8)")], ["impose_count", _("Impose move count")]];
  const result = h("select", { id: "adjudicate-result", "aria-label": _("result to adjudicate") },
    ...RESULTS.map((r) => h("option", { value: r }, r)));
  let offered = RESULTS.join();
  const note = h("input", { id: "note-text", type: "text", maxlength: "500",
    "aria-label": _("note text"), placeholder: _("note for the record") });
  const noteForm = h("form", { class: "note" }, note,
    h("button", { type: "submit", id: "action-note" }, _("Add note")));
  noteForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (note.value.trim()) { send({ action: "note", text: note.value.trim() }); note.value = ""; }
  });
  // a mistaken result corrected after the game, with the arbiter's reason (COMP 6.16)
  const fixed = h("select", { id: "correct-result", "aria-label": _("corrected result") },
    ...RESULTS.map((r) => h("option", { value: r }, r)));
  const why = h("input", { id: "correct-reason", type: "text", maxlength: "500",
    "aria-label": _("reason for the correction"), placeholder: _("why the result is corrected") });
  const fixForm = h("form", { class: "note" }, fixed, why,
    h("button", { type: "submit", id: "action-correct_result" }, _("Correct the result")));
  fixForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (!why.value.trim()) { why.focus(); return; }
    if (confirm(fmt(_("Correct the result to {result}?"), { result: fixed.value }))) {
      send({ action: "correct_result", result: fixed.value, text: why.value.trim() });
      why.value = "";
    }
  });
  container.replaceChildren(
    h("fieldset", {}, h("legend", {}, _("Clock and position")),
      ...simple.map(([action, label]) => h("button", { type: "button", id: `action-${action}`,
        onclick: () => send({ action }) }, label))),
    h("fieldset", {}, h("legend", {}, _("Adjudicate")), result,
      h("button", { type: "button", id: "action-adjudicate",
        onclick: () => { if (confirm(fmt(_("Adjudicate {result}?"), { result: result.value }))) send({ action: "adjudicate", result: result.value }); } },
      _("Adjudicate"))),
    h("fieldset", {}, h("legend", {}, _("Note")), noteForm),
    h("fieldset", {}, h("legend", {}, _("After the result")), fixForm));
  return {
    setResults(list) {
      if (!Array.isArray(list) || !list.length || list.join() === offered) return;
      offered = list.join();
      result.replaceChildren(...list.map((r) => h("option", { value: r }, r)));
      fixed.replaceChildren(...list.map((r) => h("option", { value: r }, r)));
    },
  };
}
