// The hall page: every board at a glance (mini diagram, players, clocks, moves, result, badges for
// pending flags, sensor faults and boards not heard from), live from the hub's /events.
import { drawBoard, parseFen } from "/static/board.js";
import { clockNow, formatTime, h } from "/static/live.js";
import { _, fmt, ngettext } from "/static/i18n.js";

const $ = (id) => document.getElementById(id);
const boards = new Map();     // board -> {summary, card, fen, receivedAt}
let skew = 0;                 // hub's Unix time minus ours (seconds), from /api/hall
const STALE_S = 60;           // a board silent this long is shown as not heard from

function sortKey(board) {
  const n = Number(board);
  return Number.isFinite(n) ? [0, n, ""] : [1, 0, board];
}

function compare(a, b) {
  const x = sortKey(a), y = sortKey(b);
  return x[0] - y[0] || x[1] - y[1] || x[2].localeCompare(y[2]);
}

function card(board) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  const el = h("article", { class: "card", id: `board-${board}`, "data-board": board },
    h("h2", {}, h("a", { href: `/boards/${encodeURIComponent(board)}/`, class: "title" },
      fmt(_("Board {board}"), { board })),
      h("span", { class: "badges" })),
    h("div", { class: "names" }, h("span", { class: "black" }), h("span", { class: "round muted" })),
    svg,
    h("div", { class: "names" }, h("span", { class: "white" }), h("span", { class: "result" })),
    h("div", { class: "mini-clocks" }, h("span", { class: "cw" }, "–"), h("span", { class: "cb" }, "–")),
    h("div", { class: "line" }, h("span", { class: "moves muted" }), h("span", { class: "heard muted" })));
  el.svg = svg;
  return el;
}

function place(entry) {
  const main = $("boards");
  const keys = [...boards.keys()].sort(compare);
  const i = keys.indexOf(entry.summary.board);
  const next = keys.slice(i + 1).map((k) => boards.get(k).card).find((c) => c.isConnected);
  main.insertBefore(entry.card, next || null);
}

function update(summary) {
  let entry = boards.get(summary.board);
  if (!entry) {
    entry = { summary, card: card(summary.board), fen: null, receivedAt: performance.now() };
    boards.set(summary.board, entry);
    place(entry);
  }
  entry.summary = summary;
  entry.receivedAt = performance.now();
  const c = entry.card, s = summary;
  c.querySelector(".white").textContent = `○ ${s.white || "?"}`;
  c.querySelector(".black").textContent = `● ${s.black || "?"}`;
  c.querySelector(".round").textContent = s.round ? fmt(_("round {round}"), { round: s.round }) : "";
  c.querySelector(".result").textContent = s.result && s.result !== "*" ? s.result : "";
  const moves = s.moves || 0;
  c.querySelector(".moves").textContent = moves
    ? `${Math.ceil(moves / 2)}. ${s.last_move || ""} (${fmt(ngettext("{n} ply", "{n} plies", moves), { n: moves })})`
    : (s.game_id ? _("no move yet") : _("no game"));
  if (s.fen && s.fen !== entry.fen) {
    try {
      drawBoard(c.svg, { variant: s.variant || "italian", pieces: parseFen(s.variant, s.fen).pieces,
        numbers: $("numbers").checked });
      entry.fen = s.fen;
    } catch (e) { c.svg.replaceChildren(); entry.fen = null; }
  }
  c.classList.toggle("flagged", (s.pending_flags || 0) > 0);
  c.classList.toggle("offline", s.online === false);
  badges(entry);
  filter();
  refreshRounds();
}

function badges(entry) {
  const s = entry.summary, out = [];
  if (s.pending_flags) out.push(h("span", { class: "badge flag", title: _("irregularities pending") },
    `⚑ ${s.pending_flags}`));
  if (s.sensor_faults) out.push(h("span", { class: "badge fault", title: _("sensor faults") },
    fmt(_("sensors {n}"), { n: s.sensor_faults })));
  if (s.online === false) out.push(h("span", { class: "badge off", title: _("the board left the broker") }, _("offline")));
  if (s.missing) out.push(h("span", { class: "badge lag", title: _("journal lines not yet copied to the hub") },
    fmt(ngettext("+{n} line", "+{n} lines", s.missing), { n: s.missing })));
  entry.card.querySelector(".badges").replaceChildren(...out);
}

/** Ages and clocks, every 200 ms: a clock ticks from its last reading; a silent board greys. */
function tick() {
  const now = Date.now() / 1000 + skew;
  let stale = 0;
  for (const entry of boards.values()) {
    const s = entry.summary, c = entry.card;
    const age = s.last_heard ? now - s.last_heard : null;
    const silent = s.online === false || age === null || age > STALE_S;
    if (silent) stale++;
    c.classList.toggle("stale", silent);
    c.querySelector(".heard").textContent = age === null ? _("never heard")
      : age > STALE_S ? fmt(_("silent {n} min"), { n: Math.round(age / 60) }) : "";
    const cw = c.querySelector(".cw"), cb = c.querySelector(".cb");
    if (!s.clock) { cw.textContent = cb.textContent = "–"; continue; }
    const live = s.result === "*" ? clockNow(s.clock, entry.receivedAt) :
      { white: s.clock.white * 1000, black: s.clock.black * 1000 };
    cw.textContent = `○ ${formatTime(live.white)}`;
    cb.textContent = `● ${formatTime(live.black)}`;
    cw.classList.toggle("running", s.clock.running === "white" && s.result === "*");
    cb.classList.toggle("running", s.clock.running === "black" && s.result === "*");
  }
  const shown = [...boards.values()].filter((e) => !e.card.hidden).length;
  $("summary").textContent = fmt(ngettext("{n} board", "{n} boards", shown), { n: shown }) +
    (stale ? ", " + fmt(_("{n} not heard from"), { n: stale }) : "");
}

function filter() {
  const round = $("round-filter").value;
  for (const entry of boards.values()) {
    entry.card.hidden = round !== "" && String(entry.summary.round ?? "") !== round;
  }
}

function refreshRounds() {
  const select = $("round-filter");
  const rounds = [...new Set([...boards.values()].map((e) => e.summary.round).filter((r) => r))]
    .map(String).sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
  const have = [...select.options].slice(1).map((o) => o.value);
  if (rounds.join("\n") === have.join("\n")) return;
  const value = select.value;
  select.replaceChildren(h("option", { value: "" }, _("all")),
    ...rounds.map((r) => h("option", { value: r }, r)));
  select.value = rounds.includes(value) ? value : "";
}

// A hub just started reads its games back board by board (HUB_API.md reading_back): the boards
// not read yet are missing from the page until then; it says so.
function reading(r) {
  const el = $("reading");
  el.hidden = !r;
  el.textContent = r ? fmt(_("reading the games back after a restart: {boards} of {of} boards"), r) : "";
}

async function load() {
  const r = await fetch("/api/hall", { credentials: "same-origin" });
  if (!r.ok) throw new Error(`${r.status}`);
  const hall = await r.json();
  skew = hall.server_time ? hall.server_time - Date.now() / 1000 : 0;
  $("title").textContent = `damiera — ${hall.hall}`;
  $("event").textContent = hall.event || "";
  document.title = `${hall.event || hall.hall} — damiera`;
  for (const s of hall.boards) update(s);
  reading(hall.reading_back);
}

function follow() {
  // EventSource reconnects by itself with Last-Event-ID: the hub then sends the boards that
  // changed meanwhile (HUB_API.md), so the page never reloads.
  const source = new EventSource("/events");
  source.onopen = () => { $("conn").textContent = _("live"); };
  source.onerror = () => {
    $("conn").textContent = _("reconnecting…");
    if (source.readyState === EventSource.CLOSED) setTimeout(follow, 3000);
  };
  source.addEventListener("board", (ev) => {
    try { update(JSON.parse(ev.data)); } catch { /* a bad event is skipped, the next one comes */ }
  });
  source.addEventListener("hall", (ev) => {
    try { reading(JSON.parse(ev.data).reading_back); } catch { /* the next one comes */ }
  });
}

$("round-filter").addEventListener("change", () => { filter(); tick(); });
$("numbers").addEventListener("change", () => {
  for (const e of boards.values()) { e.fen = null; update(e.summary); }
});
load().then(() => { follow(); tick(); setInterval(tick, 200); })
  .catch((e) => { $("conn").textContent = fmt(_("hall not reachable ({error}); retrying"), { error: e.message });
    setTimeout(() => location.reload(), 5000); });
