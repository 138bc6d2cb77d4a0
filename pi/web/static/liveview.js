// The live board panel (board, clocks, moves, flags, result) kept up to date from /events.
// Used by the live page and by the arbiter's console; the ids of the elements are index.html's.

import { drawBoard, parseFen } from "./board.js";
import { clockNow, followEvents, formatTime, gameTime, h, moveRows } from "./live.js";

const RESULT_TEXT = { "1-0": "White wins", "0-1": "Black wins", "1/2-1/2": "Draw",
  "2-0": "White wins", "0-2": "Black wins", "1-1": "Draw", "0-0": "Both lose", "*": "in play" };

/** Start following the game. opts.onState(state) is called after each render (the arbiter page
 * uses it); opts.onFlag(flag) for each flag as it happens. Returns {state(), refresh()}. */
export function startLive(opts = {}) {
  let state = null, clockReceived = 0, stream = null;
  const $ = (id) => document.getElementById(id);
  const numbers = $("numbers");

  function renderBoard() {
    if (!state) return;
    const variant = state.metadata.variant;
    let position = { pieces: {} };
    try { position = parseFen(variant, state.fen); } catch (e) { $("message").textContent = e.message; }
    const marks = {};
    for (const sq of state.squares_to_fix || []) marks[sq] = "fix";
    const last = state.moves.length ? state.moves[state.moves.length - 1] : null;
    drawBoard($("board"), { variant, pieces: position.pieces, numbers: numbers.checked,
      lastMove: last, marks });
  }

  function renderClock() {
    for (const side of ["white", "black"]) {
      const box = $(`clock-${side}`), face = box.querySelector(".face");
      const c = state && state.clock;
      if (!c) { face.textContent = "–"; box.className = "clock"; continue; }
      const now = clockNow(c, clockReceived);
      face.textContent = formatTime(now[side]);
      box.className = "clock" + (c.running === side && c.state === "running" ? " running" : "") +
        (c.state === "flagged" && now[side] <= 0 ? " flagged" : "");
    }
  }

  function renderMoves() {
    const body = $("moves").tBodies[0];
    const rows = moveRows(state.moves);
    const last = state.moves[state.moves.length - 1];
    body.replaceChildren(...rows.map(([n, w, b]) => h("tr", {},
      h("td", {}, `${n}.`),
      h("td", { class: w && w === last ? "last" : null, title: w ? gameTime(w.t) : null },
        w ? w.notation : "…"),
      h("td", { class: b && b === last ? "last" : null, title: b ? gameTime(b.t) : null },
        b ? b.notation : ""))));
  }

  function renderFlags() {
    $("flags").replaceChildren(...state.flags.map((f) => h("div", {
      class: `flag ${f.kind}`, "data-flag-id": f.id, "data-code": f.code },
    h("span", { class: "code" }, f.code), " ", f.title ? h("span", {}, f.title, " — ") : null,
    f.text, " ", h("span", { class: "muted" },
      `${f.side || ""} · ${f.status} · ${gameTime(f.t)}`))));
    if (!state.flags.length) $("flags").replaceChildren(h("p", { class: "muted" }, "none"));
  }

  function render() {
    if (!state) return;
    const m = state.metadata || {};
    $("white-name").textContent = `White: ${m.white || "?"}`;
    $("black-name").textContent = `Black: ${m.black || "?"}`;
    $("event").textContent = [m.event, m.round && `round ${m.round}`, m.board && `board ${m.board}`,
      m.variant, m.time_control].filter(Boolean).join(" · ");
    // what the OLED says, then what the board cannot see or wants put right
    const faults = (state.sensor_faults || []).map((f) => `sensor fault: ${f.message || f.kind}` +
      (f.squares && f.squares.length ? ` (${f.squares.join(" ")})` : ""));
    const fix = (state.squares_to_fix || []).length ? [`put right: ${state.squares_to_fix.join(" ")}`] : [];
    $("message").textContent = [state.message, ...fix, ...faults].filter(Boolean).join(" · ");
    const res = state.result || "*";
    $("result").textContent = res === "*" ? (state.phase === "setup" ? "setting up" : "in play")
      : `${res} — ${RESULT_TEXT[res] || ""}${state.result_reason ? " (" + state.result_reason + ")" : ""}`;
    $("result").dataset.result = res;
    renderBoard(); renderClock(); renderMoves(); renderFlags();
    if (opts.onState) opts.onState(state);
  }

  function setClock(clock) { state.clock = clock; clockReceived = performance.now(); }

  numbers.addEventListener("change", renderBoard);
  setInterval(() => { if (state) renderClock(); }, 100);

  const handlers = {
    state(data) { state = data; clockReceived = performance.now(); render(); },
    move(data) {
      if (!state) return;
      state.moves = state.moves.filter((m) => m.ply < data.ply);
      if (!data.retracted && data.move) state.moves.push(data.move);
      if (data.fen) state.fen = data.fen;
      render();
    },
    clock(data) { if (state) { setClock(data.clock); renderClock(); } },
    flag(data) {
      if (!state) return;
      state.flags = state.flags.filter((f) => f.id !== data.flag.id).concat([data.flag])
        .sort((a, b) => a.id - b.id);
      render();
      if (opts.onFlag) opts.onFlag(data.flag);
    },
    result(data) { if (state) { state.result = data.result; state.result_reason = data.reason; render(); } },
  };
  function connect() {
    if (stream) stream.close();
    stream = followEvents(handlers, (s) => { $("conn").textContent = s; });
  }
  connect();
  return { state: () => state, refresh: connect };
}
