// The arbiter's review console: flags with the position before and after and the sensor events
// around them, the game line by line, the arbiter's actions, downloads; and every game the board
// has played, opened the same way (its flags, its replay, its report).
import { boardSvg, drawBoard } from "./board.js";
import { api, formatTime, gameTime, h, loginBox } from "./live.js";
import { KIND_TEXT, SIDE_TEXT, STATUS_TEXT, VARIANT_TEXT, flagText, flagTitle, flagWhen, squareLabels, startLive } from "./liveview.js";
import { _, fmt, ngettext } from "./i18n.js";
import { arbiterActions } from "./actions.js";
import { describe, flagWindow, parseJournal, replayStates } from "./replay.js";

const $ = (id) => document.getElementById(id);
let state = null, records = [], states = [], step = 1, selected = null, loadedLine = -1, loading = null;
/** A game opened from the list that is not the one in play: {id, start (its start line), flags,
 * moves} (GET /api/replay?game=<id>); null while the console follows the game in play. */
let opened = null;

/** The variant and start of the game the review and the replay show (opened, or in play). */
function shown() {
  return opened ? { variant: opened.start.variant || "italian", started_at: opened.start.started_at }
    : state.metadata;
}

async function loadJournal() {
  if (!state || opened) return;  // a past game's journal is read once, when it is opened
  if (loading) return loading;
  loading = (async () => {
    try {
      const r = await fetch("api/trace.jsonl", { credentials: "same-origin" });
      if (!r.ok) throw new Error(`${r.status}`);
      const recs = parseJournal(await r.text());
      const got = await engineStates(recs)
        ?? replayStates(state.metadata.variant, recs, state.moves, state.flags);
      if (opened) return;  // a past game was opened meanwhile: its journal stays shown
      // both replaced together, after the wait for the engine's states: a flag reviewed
      // meanwhile (a live event) saw the new journal with the old, shorter states and drew a
      // state that was not there; and never more lines than states
      records = recs.slice(0, got.length);
      states = got;
      loadedLine = state.line;
      const slider = $("replay-slider");
      const atEnd = step >= +slider.max;
      slider.max = Math.max(1, states.length);
      if (atEnd) step = states.length;
      showStep();
      if (selected !== null) review(selected);
    } catch (e) {
      $("replay-step").textContent = fmt(_("journal: {error}"), { error: e.message });
    } finally { loading = null; }
  })();
  return loading;
}

/** The arbiter's own state after each line, computed by the engine on the board (GET
 * /api/replay): the pages then show exactly what the arbiter knew. Null if it cannot be had
 * (an older board): the replay is then worked out here from the journal. */
async function engineStates(recs) {
  if (state.view !== "arbiter") return null;  // arbiter only: never ask (a 401 in the console)
  try {
    const r = await fetch("api/replay", { credentials: "same-origin" });
    if (!r.ok) return null;
    const body = await r.json();
    return fromEngine(body.states.slice(0, recs.length), state.moves, state.flags);
  } catch { return null; }
}

/** The engine's states (GET /api/replay) as the replay shows them, their last moves and flags
 * those of `moves` and `flags` (the game's, by ply and id). */
function fromEngine(engineStates, moves, flags) {
  const byPly = new Map(moves.map((m) => [m.ply, m]));
  const byId = new Map(flags.map((f) => [f.id, f]));
  return engineStates.map((s) => ({
      line: s.line, record: s.record, pieces: s.pieces, hand: new Array(s.hand).fill("?"),
      moves: s.moves, turn: s.turn, result: s.result, pending: s.pending, toFix: s.to_fix,
      clock: s.clock, engine: true,
      lastMove: s.last_move ? (byPly.get(s.last_move.ply) || null) : null,
      flags: s.flags.map((f) => ({ ...(byId.get(f.id) || {}), id: f.id, code: f.code,
                                   status: f.status })),
    }));
}

/** Opens game `id` of the list: its flags (each reviewed as the game in play's are), its replay
 * line by line and its report, from GET /api/replay?game=<id> (the engine's view of its
 * journal). The game in play's id goes back to following it. */
async function openGame(id) {
  if (state && id === state.game_id) { closeGame(); return; }
  let body;
  try {
    const r = await fetch(`api/replay?game=${encodeURIComponent(id)}`, { credentials: "same-origin" });
    if (!r.ok) throw new Error(`${r.status}`);
    body = await r.json();
  } catch (e) {
    $("replay-step").textContent = fmt(_("game {id}: {error}"), { id, error: e.message });
    return;
  }
  opened = { id, start: body.states.length ? body.states[0].record : {}, flags: body.flags,
             moves: body.moves };
  records = body.states.map((s) => s.record);
  states = fromEngine(body.states, body.moves, body.flags);
  selected = null;
  const slider = $("replay-slider");
  slider.max = Math.max(1, states.length);
  step = states.length;
  renderOpened();
  showStep();
}

/** Back to the game in play. */
function closeGame() {
  if (!opened) return;
  opened = null;
  selected = null;
  records = []; states = []; loadedLine = -1;
  renderOpened();
  loadJournal();
}

function renderOpened() {
  $("opened").hidden = !opened;
  $("flags").hidden = !!opened;
  $("review-hint").hidden = false;
  $("review-body").replaceChildren();
  $("replay-h").textContent = opened ? fmt(_("Replay of game {id}, line by line"), { id: opened.id })
    : _("Replay, line by line");
  $("flags-h").textContent = opened ? fmt(_("Flags of game {id}"), { id: opened.id }) : _("Flags");
  $("moves-h").textContent = opened ? fmt(_("Moves of game {id}"), { id: opened.id }) : _("Moves");
  // the opened game's moves (a click: the replay at the line that made it), else the game in play's
  live.showMoves(opened ? opened.moves : null, stepToMove);
  if (!opened) return;
  const g = opened.start, last = states[states.length - 1];
  const result = last && last.result && last.result !== "*" ? last.result : "*";
  $("opened-about").textContent = [
    fmt(_("White: {name}"), { name: g.white || "?" }), fmt(_("Black: {name}"), { name: g.black || "?" }),
    g.event, VARIANT_TEXT[g.variant] || g.variant, result, plies(opened.moves.length),
  ].filter(Boolean).join(" · ");
  $("opened-pdf").href = `api/games/${opened.id}/report.pdf`;
  $("opened-pdn").href = `api/games/${opened.id}/game.pdn`;
  $("opened-pdn").setAttribute("download", `${opened.id}.pdn`);
  const flags = opened.flags.map((f) => {
    const el = h("div", { class: `flag ${f.kind}`, "data-flag-id": f.id, "data-code": f.code,
      tabindex: "0", role: "button" },
    h("span", { class: "code" }, f.code), " ", f.title ? h("span", {}, flagTitle(f), " — ") : null,
    flagText(f), " ", h("span", { class: "muted" },
      `${SIDE_TEXT[f.side] || ""} · ${STATUS_TEXT[f.status] || f.status} · ` +
      flagWhen(f, g.started_at)));
    el.addEventListener("click", () => review(f));
    el.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); review(f); } });
    return el;
  });
  $("opened-flags").replaceChildren(...(flags.length ? flags : [h("p", { class: "muted" }, _("none"))]));
  renderGames();
}

/** The replay at the first line after which the opened game had `move` (its ply) on record. */
function stepToMove(move) {
  const at = states.findIndex((s) => s.moves >= move.ply);
  if (at < 0) return;
  step = at + 1;
  showStep();
}

/** A count of plies (one player's move each; a "move" is the pair the PDN numbers: API.md). */
function plies(n) {
  return fmt(ngettext("{n} ply", "{n} plies", n), { n });
}

function showStep() {
  if (!states.length) return;
  step = Math.min(Math.max(1, step), states.length);
  const s = states[step - 1];
  $("replay-slider").value = step;
  drawBoard($("replay-board"), { variant: shown().variant, pieces: s.pieces,
    numbers: $("numbers").checked, lastMove: s.lastMove });
  const last = s.flags[s.flags.length - 1];
  const parts = [
    fmt(_("line {line}/{lines}"), { line: s.line, lines: states.length }),
    fmt(_("game time {time}"), { time: gameTime(s.record.t) }),
    describe(shown().variant, s.record), plies(s.moves),
    s.turn === "black" ? _("Black to move") : _("White to move"),
  ];
  if (s.hand.length) parts.push(fmt(ngettext("{n} in hand", "{n} in hand", s.hand.length), { n: s.hand.length }));
  parts.push(fmt(ngettext("{n} flag", "{n} flags", s.flags.length), { n: s.flags.length }) +
    (last ? " " + fmt(_("(last {code} {status})"),
      { code: last.code, status: STATUS_TEXT[last.status] || last.status || "" }) : ""));
  if (s.pending != null) parts.push(fmt(_("awaiting the opponent's decision on flag {id}"), { id: s.pending }));
  if (s.toFix && s.toFix.length) {
    parts.push(fmt(_("put right: {squares}"), { squares: squareLabels(shown().variant, s.toFix) }));
  }
  if (s.clock) {
    parts.push(fmt(_("clocks W {white} B {black}"),
      { white: formatTime(s.clock.white * 1000), black: formatTime(s.clock.black * 1000) }));
  }
  if (s.result && s.result !== "*") parts.push(fmt(_("result {result}"), { result: s.result }));
  $("replay-step").textContent = parts.join(" · ");
  $("replay-record").textContent = JSON.stringify(s.record);
}

function review(flag) {
  selected = flag;
  for (const el of document.querySelectorAll("#flags .flag, #opened-flags .flag")) {
    el.classList.toggle("selected", +el.dataset.flagId === flag.id);
  }
  $("review-hint").hidden = true;
  const variant = shown().variant;
  const head = h("div", { class: `flag ${flag.kind}` },
    h("div", {}, h("span", { class: "code" }, flag.code), " ", flagTitle(flag)),
    h("div", {}, flagText(flag)),
    h("div", { class: "muted" }, [
      fmt(_("offender: {side}"), { side: SIDE_TEXT[flag.side] || "—" }),
      KIND_TEXT[flag.kind] || flag.kind,
      fmt(_("status {status}"), { status: STATUS_TEXT[flag.status] || flag.status }),
      flagWhen(flag, shown().started_at),
      ...(flag.line != null ? [fmt(_("journal line {line}"), { line: flag.line })] : []),
    ].join(" · ")));
  if (!states.length) {
    $("review-body").replaceChildren(head, h("p", { class: "muted" }, _("loading the journal…")));
    loadJournal();
    return;
  }
  const w = flagWindow(records, flag);
  const before = states[w.before], after = states[w.at];
  const figure = (s, caption, id) => h("figure", { id },
    boardSvg({ variant, pieces: s.pieces, numbers: $("numbers").checked, lastMove: s.lastMove }),
    h("figcaption", {}, fmt(_("{caption} (line {line})"), { caption, line: s.line })));
  const timeline = h("ol", { class: "timeline", id: "timeline", start: w.before + 1 },
    ...records.slice(w.before, w.end + 1).map((rec, k) => {
      const line = w.before + 1 + k;
      return h("li", { class: line === w.at + 1 ? "raised" : null, "data-line": line },
        h("button", { type: "button", class: "linkish", onclick: () => { step = line; showStep(); } },
          `${gameTime(rec.t)} ${describe(variant, rec)}`));
    }));
  $("review-body").replaceChildren(head,
    h("div", { class: "diagrams" }, figure(before, _("before"), "diagram-before"),
      figure(after, _("after"), "diagram-after")),
    h("h3", {}, _("Sensor events around it (game time)")), timeline);
}

function onState(s) {
  const newGame = !state || state.game_id !== s.game_id;
  state = s;
  actions.setResults(s.metadata.results);
  fillSetup(s.metadata);
  if (s.view === "arbiter") {
    if (newGame) loadGames(); else renderGames();
  }
  $("flags").querySelectorAll(".flag").forEach((el) => {
    el.setAttribute("tabindex", "0");
    el.setAttribute("role", "button");
    const open = () => review(state.flags.find((f) => f.id === +el.dataset.flagId));
    el.addEventListener("click", open);
    el.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); open(); } });
    if (selected && +el.dataset.flagId === selected.id) el.classList.add("selected");
  });
  if (opened) return;  // a past game is shown: the game in play goes on behind it
  if (selected) selected = state.flags.find((f) => f.id === selected.id) || null;
  if (state.line !== loadedLine) loadJournal();
}

async function whoami() {
  try {
    const who = await api("api/whoami");
    // only a simulated board has a simulator (the hub's board pages and a Pi's answer 404)
    $("nav-simulator").hidden = !who.simulate;
    $("login-section").hidden = who.arbiter;
    // a lone board's set-up; a hall's boards take theirs from the hub's pairings
    $("setup-section").hidden = !who.arbiter || !!who.hall;
    $("who").textContent = who.arbiter ? _("arbiter") : _("public view");
    if (who.arbiter) {
      loadedLine = -1;  // the public journal was cut at the broadcast's line: read it all
      live.refresh();  // the stream again, now with the arbiter's view
      await loadGames();
    }
  } catch (e) { $("who").textContent = e.message; }
}

/** The list of the board's games. The files it is read from (report.json) are written after
 * the board has shown a move, so the game in play is told by the live state instead: its plies
 * and result follow each move and the result (read from the files, they lagged one behind). */
let games = [], gamesAsked = 0;
async function loadGames() {
  const ask = ++gamesAsked;
  let list;
  try { list = await api("api/games"); } catch { return; }
  if (ask !== gamesAsked) return;
  games = list;
  renderGames();
}

function renderGames() {
  $("games").replaceChildren(...games.map((g) => {
    const live = state && g.id === state.game_id;
    const result = live ? state.result : g.result, moves = live ? state.moves.length : g.moves;
    const open = opened ? g.id === opened.id : live;
    return h("li", { "data-game": g.id, class: open ? "open" : null },
      h("button", { type: "button", class: "open-game", "aria-pressed": open ? "true" : "false",
        onclick: () => openGame(g.id) }, live ? _("in play") : _("open game")), " ",
      `${g.id} ${g.white || "?"}–${g.black || "?"} ` +
      `${result || "*"} (${plies(moves)}) `,
    h("a", { href: `api/games/${g.id}/game.pdn`, download: `${g.id}.pdn` }, "PDN"), " ",
    h("a", { href: `api/games/${g.id}/trace.jsonl`, download: `${g.id}.jsonl` }, _("trace")), " ",
    h("a", { href: `api/games/${g.id}/report.json`, download: `${g.id}.json` }, _("report")), " ",
    h("a", { href: `api/games/${g.id}/report.pdf` }, _("report (PDF)")));
  }));
}

/** The next game's set-up (POST /api/setup): the players, event, round and time control its
 * start line takes; the form is filled from the game in play until the arbiter types in it. */
const SETUP_FIELDS = ["white", "black", "event", "round", "time_control"];
let setupTouched = false;
function fillSetup(meta) {
  if (setupTouched || !meta) return;
  for (const name of SETUP_FIELDS) $(`setup-${name}`).value = meta[name] == null ? "" : meta[name];
}
$("setup").addEventListener("input", () => { setupTouched = true; });
$("setup").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const body = Object.fromEntries(SETUP_FIELDS.map((name) => [name, $(`setup-${name}`).value.trim()]));
  try {
    await api("api/setup", body);
    $("setup-status").textContent = _("set up: the next game takes it");
    $("setup-status").className = "";
    setupTouched = false;
  } catch (e) {
    $("setup-status").textContent = fmt(_("set-up refused: {error}"), { error: e.message });
    $("setup-status").className = "error";
  }
});

loginBox($("login"), whoami);
const actions = arbiterActions($("actions"), (text, ok) => {
  $("action-status").textContent = text;
  $("action-status").className = ok ? "" : "error";
}, () => (state && state.game_id ? { game: state.game_id, seen: state.line } : {}));
const live = startLive({ onState });
$("replay-first").addEventListener("click", () => { step = 1; showStep(); });
$("replay-prev").addEventListener("click", () => { step -= 1; showStep(); });
$("replay-next").addEventListener("click", () => { step += 1; showStep(); });
$("replay-last").addEventListener("click", () => { step = states.length; showStep(); });
$("replay-slider").addEventListener("input", (ev) => { step = +ev.target.value; showStep(); });
$("replay-load").addEventListener("click", () => (opened ? openGame(opened.id) : loadJournal()));
$("opened-close").addEventListener("click", closeGame);
$("numbers").addEventListener("change", () => { showStep(); if (selected) review(selected); });
whoami();
