// The game event by event from its journal (docs/trace-format.md), in the browser: the position on the board
// and the arbiter's record after each journal line.
//
// The server gives the journal and the official transcript (moves with their time t); the
// position between moves is followed here from the sensors' lifts and places. Sensors that see
// occupancy only do not say which piece: a piece keeps the colour it had where it was lifted (a
// place takes the latest lifted piece of the side to move, else the latest lifted), and
// whenever the board's occupancy equals the transcript's position after the moves made so far,
// the transcript's position (colours and kings) is taken as it is. A board that knows the
// pieces (issue 40: "piece" on a place, the "piece" line, a snapshot's "pieces") is believed.
import { applyMove, initialPosition, parseFen, squareName, geometry } from "./board.js";
import { _, fmt, localize, ngettext } from "./i18n.js";

/** Parse a JSON Lines journal; unreadable lines become {type: "unreadable"}. */
export function parseJournal(text) {
  return text.split("\n").filter((l) => l.trim()).map((l) => {
    try { return JSON.parse(l); } catch { return { type: "unreadable", text: l }; }
  });
}

/** A board's piece code (docs/trace-format.md: "wm" "bm" "wk" "bk") as the position writes it. */
const PIECE_OF_CODE = { wm: "w", bm: "b", wk: "W", bk: "B" };
/** The same in words (the engine's messages). */
const PIECE_TEXT = { wm: _("a white man"), bm: _("a black man"), wk: _("a white king"),
  bk: _("a black king") };

function sameSquares(a, b) {
  const ka = Object.keys(a).sort(), kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
}

/**
 * States after each journal line: [{line (1-based), record, pieces, hand, moves (count),
 * lastMove, turn ("white"|"black"), flags (raised by then)}]. `moves` and `flags` are the
 * report's / the state's.
 */
export function replayStates(variant, records, moves, flags) {
  const g = geometry(variant);
  const start = records[0] && records[0].type === "start" ? records[0] : {};
  let position;
  try { position = start.fen ? parseFen(variant, start.fen) : initialPosition(variant); }
  catch { position = initialPosition(variant); }
  const sorted = [...moves].sort((a, b) => a.ply - b.ply);
  const transcript = [position];
  for (const m of sorted) transcript.push(applyMove(variant, transcript[transcript.length - 1], m));
  let pieces = { ...position.pieces }, hand = [], done = 0;
  const states = [];
  records.forEach((rec, i) => {
    const line = i + 1;
    const turn = transcript[done].turn;
    if (rec.type === "lift") {
      const sq = squareName(g, rec.square);
      if (sq) { hand.push(pieces[sq] || "?"); delete pieces[sq]; }
    } else if (rec.type === "place") {
      const sq = squareName(g, rec.square);
      if (sq) {
        let k = -1;
        for (let j = hand.length - 1; j >= 0; j--) if (hand[j].toLowerCase() === turn) { k = j; break; }
        if (k < 0) k = hand.length - 1;
        pieces[sq] = k >= 0 ? hand.splice(k, 1)[0] : "?";
        if (PIECE_OF_CODE[rec.piece]) pieces[sq] = PIECE_OF_CODE[rec.piece];
      }
    } else if (rec.type === "piece") {
      const sq = squareName(g, rec.square);
      if (sq && PIECE_OF_CODE[rec.piece]) pieces[sq] = PIECE_OF_CODE[rec.piece];
    } else if (rec.type === "snapshot") {
      const next = {};
      const told = {};
      for (const [s, code] of Object.entries(rec.pieces || {})) {
        const sq = squareName(g, s);
        if (sq && PIECE_OF_CODE[code]) told[sq] = PIECE_OF_CODE[code];
      }
      for (const s of rec.occupied || []) {
        const sq = squareName(g, s);
        if (sq) next[sq] = told[sq] || pieces[sq] || transcript[done].pieces[sq] || "?";
      }
      pieces = next; hand = [];
    }
    while (done < sorted.length && typeof rec.t === "number" && sorted[done].t <= rec.t) done++;
    if (sameSquares(pieces, transcript[done].pieces)) { pieces = { ...transcript[done].pieces }; hand = []; }
    states.push({
      line, record: rec, pieces: { ...pieces }, hand: [...hand], moves: done,
      lastMove: done ? sorted[done - 1] : null,
      turn: transcript[done].turn === "w" ? "white" : "black",
      flags: flags.filter((f) => (f.line != null ? f.line <= line : f.t <= (rec.t ?? 0))),
    });
  });
  return states;
}

/** The journal lines around a flag: from the start of the turn it happened in (the line after the
 * last clock press, arbiter action or start before it) to a few lines after. */
export function flagWindow(records, flag, after = 5) {
  let at = flag.line != null ? flag.line - 1 : -1;
  if (at < 0 || at >= records.length) {
    at = records.findIndex((r) => typeof r.t === "number" && r.t >= flag.t);
    if (at < 0) at = records.length - 1;
  }
  let from = at - 1;
  while (from > 0 && !(records[from].type === "button" && records[from].name === "clock") &&
         records[from].type !== "arbiter" && records[from].type !== "start") from--;
  return { before: Math.max(0, from), at, end: Math.min(records.length - 1, at + after) };
}

/** The players' buttons as the timeline names them (docs/trace-format.md names, the English as they are). */
const BUTTON_TEXT = { clock: _("clock"), accomodo: _("accomodo"), correct: _("correct"),
  accept: _("accept"), draw_offer: _("draw_offer"), draw_accept: _("draw_accept"),
  resign: _("resign"), count: _("count"), repetition: _("repetition") };

/** What a board that knows the pieces saw on a line: ": a white man (reads +1.02)", or "". */
function seen(rec) {
  let text = PIECE_TEXT[rec.piece] ? ": " + PIECE_TEXT[rec.piece] : "";
  if (typeof rec.reading === "number") {
    const r = (rec.reading >= 0 ? "+" : "") + rec.reading.toFixed(2);
    text += " (" + fmt(_("reads {reading}"), { reading: r }) + ")";
  }
  return text;
}

/** One journal line in words, for the timeline. */
export function describe(variant, rec) {
  const g = geometry(variant);
  const sq = (s) => { const n = squareName(g, s); const num = g.numberOf[n]; return num ? `${n} (${num})` : n; };
  switch (rec.type) {
    case "start": return rec.fen ? fmt(_("start: {variant} from {fen}"), { variant: rec.variant, fen: rec.fen })
      : fmt(_("start: {variant}"), { variant: rec.variant });
    case "lift": return fmt(_("lift {square}"), { square: sq(rec.square) });
    case "place": return fmt(_("place {square}"), { square: sq(rec.square) }) + seen(rec);
    case "piece": return fmt(_("{square} changed"), { square: sq(rec.square) }) + seen(rec);
    case "snapshot": {
      const n = (rec.occupied || []).length;
      return fmt(ngettext("snapshot: {n} square occupied", "snapshot: {n} squares occupied", n), { n });
    }
    case "button": return fmt(_("{side} presses {button}"),
      { side: localize(rec.side), button: BUTTON_TEXT[rec.name] || rec.name });
    case "arbiter": return fmt(_("arbiter: {action}"), { action: rec.action }) +
      `${rec.result ? " " + rec.result : ""}${rec.text ? " “" + rec.text + "”" : ""}`;
    case "fault": return fmt(_("sensor fault: {what}"), { what: localize(rec.message) || (rec.squares || []).join(" ") });
    case "fault_cleared": return fmt(_("sensors back: {squares}"), { squares: (rec.squares || []).join(" ") });
    case "restart": return fmt(_("daemon restarted (down {time})"),
      { time: rec.down == null ? _("unknown") : rec.down + " s" });
    case "end": return _("end of trace");
    default: return JSON.stringify(rec);
  }
}
