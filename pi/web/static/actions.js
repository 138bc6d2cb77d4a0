// The arbiter's actions (TRACE.md: start_clock, stop_clock, restore, impose_count, adjudicate,
// note) as a form posting to /api/arbiter; shared by the console and the simulator.
import { api, h } from "./live.js";

const RESULTS = ["1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "0-0"];

/** Fill `container` with the action buttons; `report(text, ok)` is told each answer.
 * `context()` gives what each action names: `{game, seen}` (the game shown and the last journal
 * line seen), so that the board refuses it for another game or a position moved on. */
export function arbiterActions(container, report, context = () => ({})) {
  async function send(action) {
    const body = { ...action, ...context() };
    try {
      const answer = await api("api/arbiter", body);
      report(`${body.action}: journaled as line ${answer.line}`, true);
    } catch (e) {
      report(`${body.action} refused: ${e.message}`, false);
    }
  }
  const simple = [["start_clock", "Start clock"], ["stop_clock", "Stop clock"],
    ["restore", "Restore position (IT 7.8)"], ["impose_count", "Impose move count"]];
  const result = h("select", { id: "adjudicate-result", "aria-label": "result to adjudicate" },
    ...RESULTS.map((r) => h("option", { value: r }, r)));
  const note = h("input", { id: "note-text", type: "text", maxlength: "500",
    "aria-label": "note text", placeholder: "note for the record" });
  const noteForm = h("form", { class: "note" }, note, h("button", { type: "submit", id: "action-note" }, "Add note"));
  noteForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (note.value.trim()) { send({ action: "note", text: note.value.trim() }); note.value = ""; }
  });
  container.replaceChildren(
    h("fieldset", {}, h("legend", {}, "Clock and position"),
      ...simple.map(([action, label]) => h("button", { type: "button", id: `action-${action}`,
        onclick: () => send({ action }) }, label))),
    h("fieldset", {}, h("legend", {}, "Adjudicate"), result,
      h("button", { type: "button", id: "action-adjudicate",
        onclick: () => { if (confirm(`Adjudicate ${result.value}?`)) send({ action: "adjudicate", result: result.value }); } },
      "Adjudicate")),
    h("fieldset", {}, h("legend", {}, "Note"), noteForm));
}
