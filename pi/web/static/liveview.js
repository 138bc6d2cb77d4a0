// The live board panel (board, clocks, moves, flags, result) kept up to date from /events.
// Used by the live page and by the arbiter's console; the ids of the elements are index.html's.

import { applyMove, drawBoard, geometry, initialPosition, parseFen, squareNumber } from "./board.js";
import { clockNow, followEvents, formatTime, gameTime, h, moveRows } from "./live.js";
import { _, fmt, formatClockTime, localize } from "./i18n.js";

const RESULT_TEXT = { "1-0": _("White wins"), "0-1": _("Black wins"), "1/2-1/2": _("Draw"),
  "2-0": _("White wins"), "0-2": _("Black wins"), "1-1": _("Draw"), "0-0": _("Both lose"),
  "*": _("in play") };
/** A flag's statuses in words (the API's codes stay the contract's). */
export const STATUS_TEXT = { pending: _("pending"), corrected: _("corrected"),
  maintained: _("maintained"), noted: _("noted"), lapsed: _("lapsed") };
/** A flag's kinds in words (engine/articles.py kinds). */
export const KIND_TEXT = { irregularity: _("irregularity"), incorrectness: _("incorrectness"),
  notice: _("notice"), result: _("result"), procedure: _("procedure") };

/** A flag's title and text in the page's language (the API gives the board's English). */
export function flagTitle(flag) { return flag.title ? _(flag.title) : ""; }
export function flagText(flag) { return localize(flag.text); }

/** The variants in words (engine/variants.py names; English as they are). */
export const VARIANT_TEXT = { italian: _("italian"), english: _("english"),
  international: _("international"), brazilian: _("brazilian") };

/** The players' colours in words (the API's "white"/"black" stay the contract's). */
export const SIDE_TEXT = { white: _("White"), black: _("Black") };

/** Squares as the page names them: the variant's official number of a dark square (engine/squares.py
 * numbering), the algebraic name of a light one (a piece put on a light square, IT 7.5). */
export function squareLabels(variant, squares) {
  const g = geometry(variant);
  return (squares || []).map((sq) => squareNumber(g, sq) ?? sq).join(" ");
}

/** Local wall time, 24-hour ("14:03:07"), of a Unix time in seconds, in the page's language
 * (i18n.js); "" if none. */
export function wallTime(unixSeconds) {
  if (typeof unixSeconds !== "number" || !isFinite(unixSeconds)) return "";
  return formatClockTime(unixSeconds);
}

/** When a flag was raised, naming each clock: the game time (since the game began) and, when the
 * start is known, the local wall time (24-hour). */
export function flagWhen(flag, startedAt) {
  const parts = [fmt(_("game time {time}"), { time: gameTime(flag.t) })];
  const start = typeof startedAt === "string" ? Date.parse(startedAt) / 1000 : startedAt;
  if (typeof start === "number" && isFinite(start) && typeof flag.t === "number") {
    parts.push(fmt(_("local time {time}"), { time: wallTime(start + flag.t) }));
  }
  return parts.join(", ");
}

/** Start following the game. opts.onState(state) is called after each render (the arbiter page
 * uses it); opts.onFlag(flag) for each flag as it happens. Returns {state(), refresh(),
 * showMoves(moves, pick)}: the moves table shows `moves` (another game's: the console's opened
 * game, `pick(move)` on a click) until showMoves(null) gives it back to the game followed.
 * A click on a move shows the position after it (the page is then "not live" until the
 * "live" button or the last move); the board may be flipped (Black at the bottom). */
export function startLive(opts = {}) {
  let state = null, clockReceived = 0, stream = null, viewing = null;  // viewing: plies shown, null = live
  let other = null;  // {moves, pick}: another game's moves in the table, null = the game followed
  const $ = (id) => document.getElementById(id);
  const numbers = $("numbers");
  const flip = $("flip");

  /** The position after the first `plies` moves, from the game's start position. */
  function positionAfter(plies) {
    const variant = state.metadata.variant;
    const start = state.metadata.start_fen;
    let position = start ? parseFen(variant, start) : initialPosition(variant);
    for (const m of state.moves.slice(0, plies)) position = applyMove(variant, position, m);
    return position;
  }

  function renderBoard() {
    if (!state) return;
    const variant = state.metadata.variant;
    let position = { pieces: {} }, last = null;
    const marks = {};
    try {
      if (viewing === null) {
        position = parseFen(variant, state.fen);
        for (const sq of state.squares_to_fix || []) marks[sq] = "fix";
        last = state.moves.length ? state.moves[state.moves.length - 1] : null;
      } else {
        position = positionAfter(viewing);
        last = viewing ? state.moves[viewing - 1] : null;
      }
    } catch (e) { $("message").textContent = e.message; }
    drawBoard($("board"), { variant, pieces: position.pieces, numbers: numbers.checked,
      lastMove: last, marks, flip: !!(flip && flip.checked) });
    if (flip) {  // the player whose pieces are at the bottom is named below the board
      const board = $("board"), black = $("black-name").parentElement, white = $("white-name").parentElement;
      if (flip.checked) { board.before(white); board.after(black); } else { board.before(black); board.after(white); }
    }
    renderTurn(position.turn);
    renderViewing();
  }

  /** Whose move it is, said in words (no clock need run to tell it). */
  function renderTurn(turn) {
    const el = $("turn");
    if (!el) return;
    const res = state.result || "*";
    if (viewing === null && res !== "*") el.textContent = _("game over");
    else if (viewing === null && state.phase === "setup") el.textContent = _("setting up");
    else el.textContent = turn === "b" ? _("Black to move") : _("White to move");
    el.dataset.turn = turn === "b" ? "black" : "white";
  }

  function renderViewing() {
    const bar = $("viewing");
    if (!bar) return;
    bar.hidden = viewing === null;
    if (viewing !== null) {
      const m = state.moves[viewing - 1];
      const row = m ? moveRows(state.moves).find((r) => r[1] === m || r[2] === m) : null;
      $("viewing-text").textContent = !m ? _("the start position (not live)")
        : fmt(_("after {move} (not live)"),
          { move: `${row[0]}${m.side === "black" ? "…" : "."} ${m.notation}` });
    }
  }

  /** Show the position after `plies` moves; the last move (or beyond) is live again. */
  function show(plies) {
    if (!state) return;
    viewing = plies === null || plies >= state.moves.length ? null : Math.max(0, plies);
    renderBoard(); renderMoves();
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
    if (other) { movesTable(other.moves, other.moves[other.moves.length - 1], other.pick); return; }
    if (!state) return;
    const shown = viewing === null ? state.moves[state.moves.length - 1] : state.moves[viewing - 1];
    movesTable(state.moves, shown, (m) => show(state.moves.indexOf(m) + 1));
  }

  /** The moves table: `moves` numbered in rows, `shown` marked, `pick(move)` on a click. */
  function movesTable(moves, shown, pick) {
    const cell = (m) => h("td", { class: m && m === shown ? "last" : null },
      m ? h("button", { type: "button", class: "move linkish", "data-ply": m.ply,
        title: fmt(_("game time {time}: show the position after this move"), { time: gameTime(m.t) }),
        onclick: () => pick(m) }, m.notation) : "");
    $("moves").tBodies[0].replaceChildren(...moveRows(moves).map(([n, w, b]) => h("tr", {},
      h("td", {}, `${n}.`), w ? cell(w) : h("td", {}, "…"), cell(b))));
  }

  function renderFlags() {
    $("flags").replaceChildren(...state.flags.map((f) => h("div", {
      class: `flag ${f.kind}`, "data-flag-id": f.id, "data-code": f.code },
    h("span", { class: "code" }, f.code), " ", f.title ? h("span", {}, flagTitle(f), " — ") : null,
    flagText(f), " ", h("span", { class: "muted" },
      `${SIDE_TEXT[f.side] || ""} · ${STATUS_TEXT[f.status] || f.status} · ` +
      flagWhen(f, state.metadata.started_at)))));
    if (!state.flags.length) $("flags").replaceChildren(h("p", { class: "muted" }, _("none")));
  }

  function render() {
    if (!state) return;
    const m = state.metadata || {};
    $("white-name").textContent = fmt(_("White: {name}"), { name: m.white || "?" });
    $("black-name").textContent = fmt(_("Black: {name}"), { name: m.black || "?" });
    $("event").textContent = [m.event, m.round && fmt(_("round {round}"), { round: m.round }),
      m.board && fmt(_("board {board}"), { board: m.board }),
      VARIANT_TEXT[m.variant] || m.variant, m.time_control].filter(Boolean).join(" · ");
    const names = [m.board && fmt(_("Board {board}"), { board: m.board }),
      m.round && fmt(_("Round {round}"), { round: m.round })].filter(Boolean);
    if ($("names")) {
      $("names").textContent = names.join(" · ");
      if (names.length) document.title = `${names.join(" · ")} — damiera`;
    }
    // what the OLED says, then what the board cannot see or wants put right
    // a fault's message as the board's screen shows it ("sensor fault: 0x21, squares c3 e3
    // (no answer)", pi/drivers/faults.py), localized; one without a message: its kind and squares
    const faults = (state.sensor_faults || []).map((f) => f.message
      ? localize(`${f.message} (${f.kind})`)
      : fmt(_("sensor fault: {what}"), { what: localize(f.kind) }) +
        (f.squares && f.squares.length ? ` (${f.squares.join(" ")})` : ""));
    // the squares to put right, in the page's numbering, once (the board's own message may say it)
    const fix = (state.squares_to_fix || []).length
      ? [fmt(_("put right: {squares}"), { squares: squareLabels(m.variant, state.squares_to_fix) })] : [];
    const message = (state.message || "").startsWith("put right:") && fix.length ? ""
      : localize(state.message);
    $("message").textContent = [message, ...fix, ...faults].filter(Boolean).join(" · ");
    const res = state.result || "*";
    $("result").textContent = res === "*" ? (state.phase === "setup" ? _("setting up") : _("in play"))
      : `${res} — ${RESULT_TEXT[res] || ""}${state.result_reason ? " (" + localize(state.result_reason) + ")" : ""}`;
    $("result").dataset.result = res;
    renderBoard(); renderClock(); renderMoves(); renderFlags();
    if (opts.onState) opts.onState(state);
  }

  function setClock(clock) { state.clock = clock; clockReceived = performance.now(); }

  numbers.addEventListener("change", renderBoard);
  if (flip) flip.addEventListener("change", renderBoard);
  const button = (id, f) => { if ($(id)) $(id).addEventListener("click", f); };
  button("back-to-live", () => show(null));
  button("step-prev", () => show((viewing ?? state.moves.length) - 1));
  button("step-next", () => show((viewing ?? state.moves.length) + 1));
  setInterval(() => { if (state) renderClock(); }, 100);

  const handlers = {
    state(data) {
      state = data; clockReceived = performance.now();
      if (viewing !== null && viewing > state.moves.length) viewing = null;  // another game
      render();
    },
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
  function showMoves(moves, pick) {
    other = moves ? { moves, pick } : null;
    renderMoves();
  }
  return { state: () => state, refresh: connect, showMoves };
}
