// The arbiter's review console: flags with the position before and after and the sensor events
// around them, the game line by line, the arbiter's actions, downloads.
import { boardSvg, drawBoard } from "./board.js";
import { api, formatTime, gameTime, h, loginBox } from "./live.js";
import { startLive } from "./liveview.js";
import { arbiterActions } from "./actions.js";
import { describe, flagWindow, parseJournal, replayStates } from "./replay.js";

const $ = (id) => document.getElementById(id);
let state = null, records = [], states = [], step = 1, selected = null, loadedLine = -1, loading = null;

async function loadJournal() {
  if (!state) return;
  if (loading) return loading;
  loading = (async () => {
    try {
      const r = await fetch("api/trace.jsonl", { credentials: "same-origin" });
      if (!r.ok) throw new Error(`${r.status}`);
      records = parseJournal(await r.text());
      states = await engineStates(records)
        ?? replayStates(state.metadata.variant, records, state.moves, state.flags);
      loadedLine = state.line;
      const slider = $("replay-slider");
      const atEnd = step >= +slider.max;
      slider.max = Math.max(1, states.length);
      if (atEnd) step = states.length;
      showStep();
      if (selected !== null) review(selected);
    } catch (e) {
      $("replay-step").textContent = `journal: ${e.message}`;
    } finally { loading = null; }
  })();
  return loading;
}

/** The arbiter's own state after each line, computed by the engine on the board (GET
 * /api/replay): the pages then show exactly what the arbiter knew. Null if it cannot be had
 * (an older board): the replay is then worked out here from the journal. */
async function engineStates(recs) {
  try {
    const r = await fetch("api/replay", { credentials: "same-origin" });
    if (!r.ok) return null;
    const body = await r.json();
    const byPly = new Map(state.moves.map((m) => [m.ply, m]));
    const byId = new Map(state.flags.map((f) => [f.id, f]));
    return body.states.slice(0, recs.length).map((s) => ({
      line: s.line, record: s.record, pieces: s.pieces, hand: new Array(s.hand).fill("?"),
      moves: s.moves, turn: s.turn, result: s.result, pending: s.pending, toFix: s.to_fix,
      clock: s.clock, engine: true,
      lastMove: s.last_move ? (byPly.get(s.last_move.ply) || null) : null,
      flags: s.flags.map((f) => ({ ...(byId.get(f.id) || {}), id: f.id, code: f.code,
                                   status: f.status })),
    }));
  } catch { return null; }
}

/** A count of plies (one player's move each; a "move" is the pair the PDN numbers: API.md). */
function plies(n) {
  return `${n} ${n === 1 ? "ply" : "plies"}`;
}

function showStep() {
  if (!states.length) return;
  step = Math.min(Math.max(1, step), states.length);
  const s = states[step - 1];
  $("replay-slider").value = step;
  drawBoard($("replay-board"), { variant: state.metadata.variant, pieces: s.pieces,
    numbers: $("numbers").checked, lastMove: s.lastMove });
  $("replay-step").textContent = `line ${s.line}/${states.length} · t ${gameTime(s.record.t)} · ` +
    `${describe(state.metadata.variant, s.record)} · ${plies(s.moves)} · ${s.turn} to move` +
    (s.hand.length ? ` · ${s.hand.length} in hand` : "") +
    ` · ${s.flags.length} flags${s.flags.length ? " (last " + s.flags[s.flags.length - 1].code + " " +
      (s.flags[s.flags.length - 1].status || "") + ")" : ""}` +
    (s.pending != null ? ` · awaiting the opponent's decision on flag ${s.pending}` : "") +
    (s.toFix && s.toFix.length ? ` · put right: ${s.toFix.join(" ")}` : "") +
    (s.clock ? ` · clocks W ${formatTime(s.clock.white * 1000)} B ${formatTime(s.clock.black * 1000)}` : "") +
    (s.result && s.result !== "*" ? ` · result ${s.result}` : "");
  $("replay-record").textContent = JSON.stringify(s.record);
}

function review(flag) {
  selected = flag;
  for (const el of document.querySelectorAll("#flags .flag")) {
    el.classList.toggle("selected", +el.dataset.flagId === flag.id);
  }
  $("review-hint").hidden = true;
  const variant = state.metadata.variant;
  const head = h("div", { class: `flag ${flag.kind}` },
    h("div", {}, h("span", { class: "code" }, flag.code), " ", flag.title || ""),
    h("div", {}, flag.text),
    h("div", { class: "muted" }, `offender: ${flag.side || "—"} · ${flag.kind} · status ${flag.status} · ` +
      `t ${gameTime(flag.t)}${flag.line != null ? " · journal line " + flag.line : ""}`));
  if (!states.length) {
    $("review-body").replaceChildren(head, h("p", { class: "muted" }, "loading the journal…"));
    loadJournal();
    return;
  }
  const w = flagWindow(records, flag);
  const before = states[w.before], after = states[w.at];
  const figure = (s, caption, id) => h("figure", { id },
    boardSvg({ variant, pieces: s.pieces, numbers: $("numbers").checked, lastMove: s.lastMove }),
    h("figcaption", {}, `${caption} (line ${s.line})`));
  const timeline = h("ol", { class: "timeline", id: "timeline", start: w.before + 1 },
    ...records.slice(w.before, w.end + 1).map((rec, k) => {
      const line = w.before + 1 + k;
      return h("li", { class: line === w.at + 1 ? "raised" : null, "data-line": line },
        h("button", { type: "button", class: "linkish", onclick: () => { step = line; showStep(); } },
          `${gameTime(rec.t)} ${describe(variant, rec)}`));
    }));
  $("review-body").replaceChildren(head,
    h("div", { class: "diagrams" }, figure(before, "before", "diagram-before"),
      figure(after, "after", "diagram-after")),
    h("h3", {}, "Sensor events around it"), timeline);
}

function onState(s) {
  state = s;
  $("flags").querySelectorAll(".flag").forEach((el) => {
    el.setAttribute("tabindex", "0");
    el.setAttribute("role", "button");
    const open = () => review(state.flags.find((f) => f.id === +el.dataset.flagId));
    el.addEventListener("click", open);
    el.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); open(); } });
    if (selected && +el.dataset.flagId === selected.id) el.classList.add("selected");
  });
  if (selected) selected = state.flags.find((f) => f.id === selected.id) || null;
  if (state.line !== loadedLine) loadJournal();
}

async function whoami() {
  try {
    const who = await api("api/whoami");
    // only a simulated board has a simulator (the hub's board pages and a Pi's answer 404)
    $("nav-simulator").hidden = !who.simulate;
    $("login-section").hidden = who.arbiter;
    $("who").textContent = who.arbiter ? "arbiter" : "public view";
    if (who.arbiter) {
      loadedLine = -1;  // the public journal was cut at the broadcast's line: read it all
      live.refresh();  // the stream again, now with the arbiter's view
      const games = await api("api/games");
      $("games").replaceChildren(...games.map((g) => h("li", {}, `${g.id} ${g.white || "?"}–${g.black || "?"} ` +
        `${g.result || "*"} (${plies(g.moves)}) `,
      h("a", { href: `api/games/${g.id}/game.pdn`, download: `${g.id}.pdn` }, "PDN"), " ",
      h("a", { href: `api/games/${g.id}/trace.jsonl`, download: `${g.id}.jsonl` }, "trace"), " ",
      h("a", { href: `api/games/${g.id}/report.json`, download: `${g.id}.json` }, "report"))));
    }
  } catch (e) { $("who").textContent = e.message; }
}

const live = startLive({ onState });
loginBox($("login"), whoami);
arbiterActions($("actions"), (text, ok) => {
  $("action-status").textContent = text;
  $("action-status").className = ok ? "" : "error";
}, () => (state && state.game_id ? { game: state.game_id, seen: state.line } : {}));
$("replay-first").addEventListener("click", () => { step = 1; showStep(); });
$("replay-prev").addEventListener("click", () => { step -= 1; showStep(); });
$("replay-next").addEventListener("click", () => { step += 1; showStep(); });
$("replay-last").addEventListener("click", () => { step = states.length; showStep(); });
$("replay-slider").addEventListener("input", (ev) => { step = +ev.target.value; showStep(); });
$("replay-load").addEventListener("click", loadJournal);
$("numbers").addEventListener("change", () => { showStep(); if (selected) review(selected); });
whoami();
