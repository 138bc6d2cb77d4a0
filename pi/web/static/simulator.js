// The simulated board in the browser: clicks become the sensors' lifts and places, the buttons
// the players' controls; everything goes through the real daemon (the effect comes back by
// /events like a real board's). The board's sensors see occupancy only: the colours shown are
// the game's position, with the pieces in hand carried from where they were lifted.
import { drawBoard, parseFen } from "./board.js";
import { api, h, loginBox } from "./live.js";
import { startLive } from "./liveview.js";
import { arbiterActions } from "./actions.js";

const BUTTONS = [["clock", "Clock"], ["accomodo", "Accomodo"], ["correct", "Correct"],
  ["accept", "Accept"], ["draw_offer", "Offer draw"], ["draw_accept", "Accept draw"],
  ["resign", "Resign"], ["count", "Count"], ["repetition", "Repetition"]];
const $ = (id) => document.getElementById(id);
let pieces = {}, hand = [], occupied = new Set(), variant = "italian", fenPieces = {}, busy = false;
let turn = "w";

/** The piece a place puts down: the latest lifted of the side to move (a capture lifts the
 * opponent's men too), else the latest lifted. */
function fromHand() {
  for (let j = hand.length - 1; j >= 0; j--) {
    if (hand[j].toLowerCase() === turn) return hand.splice(j, 1)[0];
  }
  return hand.length ? hand.pop() : "?";
}

function say(text) { $("sim-error").textContent = text || ""; }

function draw() {
  const shown = {};
  for (const sq of occupied) shown[sq] = pieces[sq] || fenPieces[sq] || "?";
  const marks = {};
  drawBoard($("simboard"), { variant, pieces: shown, numbers: $("numbers").checked, marks,
    onClick: click });
  $("hand").textContent = hand.length ? hand.map((p) => ({ w: "white man", b: "black man",
    W: "white king", B: "black king" }[p] || "a piece")).join(", ") : "nothing";
}

async function refreshBoard() {
  try {
    const board = await api("api/sim/board");
    occupied = new Set(board.occupied);
    if (board.pieces) pieces = { ...board.pieces };
    for (const sq of Object.keys(pieces)) if (!occupied.has(sq)) delete pieces[sq];
    draw();
  } catch (e) {
    if (!e.message.startsWith("401")) { say(`board: ${e.message}`); return; }
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
    if (occupied.has(square)) {
      await api("api/sim/lift", { square });
      hand.push(pieces[square] || fenPieces[square] || "?");
      delete pieces[square];
      occupied.delete(square);
    } else {
      await api("api/sim/place", { square });
      pieces[square] = fromHand();
      occupied.add(square);
    }
    say("");
    draw();
  } catch (e) {
    say(e.message.startsWith("401") ? "log in with the arbiter's token to use the controls" : e.message);
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
  $("oled").src = `/api/sim/oled.png?line=${state.line}&t=${Date.now()}`;
}

function buttons() {
  const row = (side) => h("fieldset", {}, h("legend", {}, side === "white" ? "White" : "Black"),
    ...BUTTONS.map(([name, label]) => h("button", { type: "button", id: `btn-${side}-${name}`,
      "data-side": side, "data-name": name, onclick: async () => {
        try { await api("api/sim/button", { name, side }); say(""); } catch (e) { say(e.message); }
      } }, label)));
  $("buttons").replaceChildren(row("white"), row("black"));
}

async function whoami() {
  try {
    const who = await api("api/whoami");
    $("login-section").hidden = who.arbiter;
    if (who.arbiter) refreshBoard();  // the board and the OLED are the arbiter's (API.md)
  } catch { /* the login box stays */ }
}

loginBox($("login"), whoami);
whoami();
buttons();
arbiterActions($("actions"), (text, ok) => say(ok ? "" : text));
$("numbers").addEventListener("change", draw);
startLive({ onState });
refreshBoard();
setInterval(() => { $("oled").src = `/api/sim/oled.png?t=${Date.now()}`; }, 1000);
