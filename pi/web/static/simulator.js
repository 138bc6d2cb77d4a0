// The simulated board in the browser: clicks become the sensors' lifts and places, the buttons
// the players' controls; everything goes through the real daemon (the effect comes back by
// /events like a real board's). Presence sensors see occupancy only: the colours shown are
// the game's position, with the pieces in hand carried from where they were lifted. An analog
// Hall board (issue 40) knows its pieces: they are drawn as they stand, a place puts down the
// piece in hand, and a man can be crowned (a second man stacked) or a king's top man lifted.
// The simulator is a board and nothing more: its set of pieces (24, or 40) is on the board, in
// the player's hand or in the box of captured pieces; a piece is put down only from the hand.
import { drawBoard, geometry, parseFen, squareNumber } from "./board.js";
import { api, h, loginBox } from "./live.js";
import { startLive } from "./liveview.js";
import { arbiterActions } from "./actions.js";
import { _, fmt, ngettext } from "./i18n.js";

const BUTTONS = [["clock", _("Clock")], ["accomodo", _("Accomodo")], ["correct", _("Correct")],
  ["accept", _("Accept")], ["draw_offer", _("Offer draw")], ["draw_accept", _("Accept draw")],
  ["resign", _("Resign")], ["count", _("Count")], ["repetition", _("Repetition")]];
const $ = (id) => document.getElementById(id);
let pieces = {}, hand = [], occupied = new Set(), variant = "italian", fenPieces = {}, busy = false;
let turn = "w", setSize = 24, actions = null, arbiter = false;
let analog = false, stacking = null;
const CODES = { w: "wm", b: "bm", W: "wk", B: "bk" };
const FROM_CODE = { wm: "w", bm: "b", wk: "W", bk: "B" };

/** The OLED's image, the arbiter's only (it may show a held move, API.md): logged out, the
 * page says so instead of asking for an image it would be refused (a broken image, issue 37). */
function showOled(query) {
  $("oled").hidden = !arbiter;
  $("oled-locked").hidden = arbiter;
  if (arbiter) $("oled").src = `/api/sim/oled.png?${query}`;
}

const PIECE_NAMES = { w: _("white man"), b: _("black man"), W: _("white king"), B: _("black king") };

/** A square as the page names it: "c4 (18)". */
function label(square) {
  const n = squareNumber(geometry(variant), square);
  return n ? `${square} (${n})` : square;
}

/** The pieces in the box: the set less those on the board and in hand. */
function inBox() { return Math.max(0, setSize - occupied.size - hand.length); }

/** The piece a place puts down: the latest lifted of the side to move (a capture lifts the
 * opponent's men too), else the latest lifted. Called with a piece in hand only. */
function fromHand() {
  for (let j = hand.length - 1; j >= 0; j--) {
    if (hand[j].toLowerCase() === turn) return hand.splice(j, 1)[0];
  }
  return hand.pop();
}

/** An error (red, `#sim-error`) or, with ok, what was done (`#sim-status`); each clears the other. */
function say(text, ok = false) {
  $("sim-error").textContent = ok ? "" : text || "";
  $("sim-status").textContent = ok ? text || "" : "";
}

function draw() {
  const shown = {};
  for (const sq of occupied) shown[sq] = pieces[sq] || fenPieces[sq] || "?";
  const marks = {};
  drawBoard($("simboard"), { variant, pieces: shown, numbers: $("numbers").checked, marks,
    onClick: click });
  $("hand").textContent = hand.length ? hand.map((p) => PIECE_NAMES[p] || _("a piece")).join(", ")
    : _("nothing");
  const box = inBox();
  $("box").textContent = fmt(ngettext("{n} piece", "{n} pieces", box), { n: box });
  $("box-white").disabled = $("box-black").disabled = box === 0;
  $("to-box").disabled = hand.length === 0;
}

async function refreshBoard() {
  try {
    const board = await api("api/sim/board");
    occupied = new Set(board.occupied);
    if (board.pieces) setSize = board.pieces;
    analog = Boolean(board.kinds);
    $("stack").hidden = !analog;
    if (analog) {
      pieces = {};
      for (const [sq, code] of Object.entries(board.kinds)) pieces[sq] = FROM_CODE[code];
    }
    for (const sq of Object.keys(pieces)) if (!occupied.has(sq)) delete pieces[sq];
    draw();
  } catch (e) {
    if (!e.message.startsWith("401")) { say(fmt(_("board: {error}"), { error: e.message })); return; }
    // not logged in: the sensors are the arbiter's (they show a held move); the game's
    // position as the public sees it is drawn instead
    occupied = new Set(Object.keys(fenPieces));
    pieces = { ...fenPieces };
    draw();
  }
}

async function click(square) {
  if (busy) return;
  busy = true;
  try {
    if (stacking) {
      const verb = stacking;
      stacking = null;
      await api(`api/sim/${verb}`, { square });
      say(fmt(verb === "crown" ? _("crowned the man on {square}") : _("lifted the top man of the king on {square}"),
        { square: label(square) }), true);
      await refreshBoard();
    } else if (occupied.has(square)) {
      await api("api/sim/lift", { square });
      const piece = pieces[square] || fenPieces[square] || "?";
      hand.push(piece);
      delete pieces[square];
      occupied.delete(square);
      say(fmt(_("lifted {piece} from {square}"), { piece: PIECE_NAMES[piece] || _("a piece"), square: label(square) }), true);
    } else if (!hand.length) {
      // a board has no piece from nowhere: put down only what was lifted or taken from the box
      say(inBox() ? _("nothing in hand: lift a piece, or take one from the box")
        : _("nothing in hand: lift a piece first"));
    } else {
      const piece = fromHand();
      try {
        await api("api/sim/place", analog && CODES[piece] ? { square, piece: CODES[piece] } : { square });
      } catch (e) { hand.push(piece); throw e; }
      pieces[square] = piece;
      occupied.add(square);
      say(fmt(_("placed {piece} on {square}"), { piece: PIECE_NAMES[piece] || _("a piece"), square: label(square) }), true);
    }
    draw();
  } catch (e) {
    say(refusal(e));
  } finally { busy = false; }
}

function onState(state) {
  variant = state.metadata.variant;
  try {
    const position = parseFen(variant, state.fen);
    fenPieces = position.pieces;
    turn = position.turn;
  } catch { fenPieces = {}; }
  // the board shows the game's position again: its colours and kings are the game's
  const fenSquares = Object.keys(fenPieces).sort().join();
  if (fenSquares === [...occupied].sort().join()) { pieces = { ...fenPieces }; hand = []; }
  refreshBoard();
  showOled(`line=${state.line}&t=${Date.now()}`);
  if (actions) actions.setResults(state.metadata.results);
}

const label_of = (name) => (BUTTONS.find(([n]) => n === name) || [name, name])[1].toLowerCase();

const LOG_IN = _("log in with the arbiter's token to use the controls");
/** An answer's error in words: a 401 asks for the token. */
function refusal(e) {
  return e.message.startsWith("401") ? LOG_IN
    : e.message;
}

/** The box of captured pieces: a piece taken out goes to the hand, the hand's pieces go back. */
function boxControls() {
  const take = (piece) => () => {
    if (!inBox()) return;
    hand.push(piece);
    say(fmt(_("took a {piece} from the box"), { piece: PIECE_NAMES[piece] }), true);
    draw();
  };
  $("box-white").addEventListener("click", take("w"));
  $("box-black").addEventListener("click", take("b"));
  $("to-box").addEventListener("click", () => {
    const n = hand.length;
    hand = [];
    say(fmt(ngettext("put {n} piece into the box", "put {n} pieces into the box", n), { n }), true);
    draw();
  });
}

/** Crowning on an analog board: the next click on a square stacks or unstacks there. */
function stackControls() {
  const arm = (verb) => () => {
    stacking = verb;
    say(verb === "crown" ? _("click the man to crown") : _("click the king whose top man to lift"), true);
  };
  $("crown").addEventListener("click", arm("crown"));
  $("uncrown").addEventListener("click", arm("uncrown"));
}

function buttons() {
  const row = (side) => h("fieldset", {}, h("legend", {}, side === "white" ? _("White") : _("Black")),
    ...BUTTONS.map(([name, label]) => h("button", { type: "button", id: `btn-${side}-${name}`,
      "data-side": side, "data-name": name, onclick: async () => {
        try {
          await api("api/sim/button", { name, side });
          say(fmt(_("{side} pressed {button}"),
            { side: side === "white" ? _("White") : _("Black"), button: label_of(name) }), true);
        } catch (e) { say(refusal(e)); }
      } }, label)));
  $("buttons").replaceChildren(row("white"), row("black"));
}

async function whoami() {
  try {
    const who = await api("api/whoami");
    $("login-section").hidden = who.arbiter;
    arbiter = who.arbiter;
    showOled(`t=${Date.now()}`);
    if (who.arbiter) refreshBoard();  // the board and the OLED are the arbiter's (API.md)
    if (who.arbiter && $("sim-error").textContent === LOG_IN) say(_("logged in"), true);
  } catch { /* the login box stays */ }
}

loginBox($("login"), whoami);
whoami();
buttons();
actions = arbiterActions($("actions"), (text, ok) => say(text, ok));
boxControls();
stackControls();
$("numbers").addEventListener("change", draw);
startLive({ onState });
refreshBoard();
setInterval(() => showOled(`t=${Date.now()}`), 1000);
