// The hall's arbiter console: pending flags across every board, newest first, with a sound; a
// filter by board, round and status; the boards not heard from; pairings sent to the boards;
// the results table. Each flag links to that board's review console (served from the replica).
import { api, h, loginBox } from "/static/live.js";
import { _, fmt, formatClockTime, localize, ngettext } from "/static/i18n.js";
import { SIDE_TEXT, STATUS_TEXT } from "/static/liveview.js";

const $ = (id) => document.getElementById(id);
const flags = new Map();      // `${board}/${game_id}/${flag id}` -> {board, round, game_id, flag, wall, order, fresh}
const summaries = new Map();  // board -> board summary
const alarms = new Map();     // alarm id -> {id, board, time, last, kind, what, count}
let arbiter = false, skew = 0, audio = null, arrival = 0;
const STALE_S = 60;

function beep() {
  if (!$("sound").checked) return;
  try {
    audio = audio || new AudioContext();
    const osc = audio.createOscillator(), gain = audio.createGain();
    osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.2, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.4);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.4);
  } catch { /* no audio device: the flashing row is the signal */ }
}

/** A Unix time (seconds) as the hall's local wall-clock time, 24-hour ("14:03:07"), in the
 * page's language (i18n.js: Intl with hourCycle h23, whatever the browser's own habit). */
function clock24(unixSeconds) {
  return formatClockTime(unixSeconds);
}

function when(item) {
  if (!item.wall) return "";
  return clock24(item.wall);
}

function key(item) { return `${item.board}/${item.game_id || ""}/${item.flag.id}`; }

function addFlag(item, live) {
  const k = key(item), old = flags.get(k);
  item.order = old ? old.order : ++arrival;
  item.fresh = live && (!old || old.flag.status !== item.flag.status);
  flags.set(k, item);
  if (live && item.flag.status === "pending" && (!old || old.flag.status !== "pending")) beep();
}

function render() {
  const board = $("board-filter").value, round = $("round-filter").value, status = $("status-filter").value;
  const rows = [...flags.values()]
    .filter((f) => (!board || f.board === board) && (!round || String(f.round ?? "") === round)
      && (!status || f.flag.status === status))
    .sort((a, b) => (b.wall || 0) - (a.wall || 0) || b.order - a.order);
  const body = $("flags").querySelector("tbody");
  body.replaceChildren(...rows.map((f) => {
    const link = `/boards/${encodeURIComponent(f.board)}/arbiter?flag=${encodeURIComponent(f.flag.id)}`;
    const tr = h("tr", { class: f.fresh ? "new" : null, "data-board": f.board, "data-flag": f.flag.id },
      h("td", {}, when(f)),
      h("td", {}, h("a", { href: link }, f.board)),
      h("td", {}, f.round ?? ""),
      h("td", {}, h("strong", {}, f.flag.code), " ", f.flag.title ? _(f.flag.title) : ""),
      h("td", {}, localize(f.flag.text || "")),
      h("td", {}, SIDE_TEXT[f.flag.side] || f.flag.side || ""),
      h("td", { "data-status": f.flag.status }, STATUS_TEXT[f.flag.status] || f.flag.status));
    f.fresh = false;
    return tr;
  }));
  $("flags-empty").hidden = rows.length > 0;
  options($("board-filter"), [...new Set([...summaries.keys(), ...[...flags.values()].map((f) => f.board)])]);
  options($("round-filter"), [...new Set([...summaries.values()].map((s) => s.round)
    .concat([...flags.values()].map((f) => f.round)).filter((r) => r !== null && r !== undefined && r !== "")
    .map(String))]);
}

function options(select, values) {
  values.sort((a, b) => Number(a) - Number(b) || String(a).localeCompare(String(b)));
  const have = [...select.options].slice(1).map((o) => o.value);
  if (values.join("\n") === have.join("\n")) return;
  const value = select.value;
  select.replaceChildren(h("option", { value: "" }, _("all")), ...values.map((v) => h("option", { value: v }, v)));
  select.value = values.includes(value) ? value : "";
}

function silent() {
  const now = Date.now() / 1000 + skew;
  const items = [...summaries.values()].filter((s) => s.online === false || !s.last_heard
    || now - s.last_heard > STALE_S).sort((a, b) => Number(a.board) - Number(b.board));
  $("silent").replaceChildren(...(items.length ? items.map((s) => h("li", {},
    h("a", { href: `/boards/${encodeURIComponent(s.board)}/arbiter` }, fmt(_("Board {board}"), { board: s.board })), " ",
    s.online === false ? _("left the broker") : s.last_heard
      ? fmt(_("silent for {n} min"), { n: Math.round((now - s.last_heard) / 60) }) : _("never heard"),
    s.missing ? ` — ${s.missing} journal lines not yet copied` : "")) : [h("li", { class: "muted" }, "none")]));
}

// Alarms: someone speaking for a board (a forged or unsigned line, a conflicting copy, a status
// not signed by the board, its credentials used by another client). Newest first, with a sound.
function renderAlarms() {
  const rows = [...alarms.values()].sort((a, b) => b.last - a.last || b.id - a.id);
  $("alarms").querySelector("tbody").replaceChildren(...rows.map((a) => h("tr",
    { class: "alarm", "data-board": a.board, "data-kind": a.kind },
    h("td", {}, clock24(a.time)),
    h("td", {}, h("a", { href: `/boards/${encodeURIComponent(a.board)}/arbiter` }, a.board)),
    h("td", {}, localize(a.what)),
    h("td", {}, a.count > 1 ? `×${a.count}` : ""))));
  $("alarms-empty").hidden = rows.length > 0;
}

function addAlarm(a, live) {
  const old = alarms.get(a.id);
  alarms.set(a.id, a);
  if (live && !old) beep();
}

async function loadAlarms() {
  const list = await api("/api/alarms");
  for (const a of list) addAlarm(a, false);
  renderAlarms();
}

async function loadFlags() {
  const list = await api("/api/flags");
  for (const item of list) addFlag(item, false);
  render();
}

async function loadResults() {
  const rows = await api("/api/results");
  $("results").querySelector("tbody").replaceChildren(...rows.map((r) => h("tr", {},
    h("td", {}, r.round ?? ""), h("td", {}, r.board), h("td", {}, r.white || "?"),
    h("td", {}, r.black || "?"), h("td", {}, r.result || "*"))));
}

async function loadHall() {
  const hall = await api("/api/hall");
  skew = hall.server_time ? hall.server_time - Date.now() / 1000 : 0;
  $("event").textContent = hall.event || hall.hall || "";
  arbiter = hall.view === "arbiter";
  $("who").textContent = arbiter ? _("arbiter") : _("not logged in");
  $("login-section").hidden = arbiter;
  for (const s of hall.boards) summaries.set(s.board, s);
  silent();
}

function follow() {
  const source = new EventSource("/events");
  source.onopen = () => {
    $("conn").textContent = _("live");
    loadAlarms().catch(() => {});  // those raised while the stream was away
  };
  source.onerror = () => {
    $("conn").textContent = _("reconnecting…");
    if (source.readyState === EventSource.CLOSED) setTimeout(follow, 3000);
  };
  let resultsDue = null;
  source.addEventListener("board", (ev) => {
    let s;
    try { s = JSON.parse(ev.data); } catch { return; }
    const before = summaries.get(s.board);
    summaries.set(s.board, s);
    silent();
    if (!before || before.result !== s.result || before.game_id !== s.game_id) {
      clearTimeout(resultsDue);
      resultsDue = setTimeout(() => loadResults().catch(() => {}), 300);
    }
  });
  source.addEventListener("alarm", (ev) => {
    let a;
    try { a = JSON.parse(ev.data); } catch { return; }
    addAlarm(a, true);
    renderAlarms();
  });
  source.addEventListener("flag", (ev) => {
    let item;
    try { item = JSON.parse(ev.data); } catch { return; }
    const s = summaries.get(item.board);
    // a flag event carries no wall time of its own: it happened now (the hub sends it as it
    // replicates the line); a decided flag keeps the time it was raised
    const old = flags.get(`${item.board}/${item.game_id ?? (s ? s.game_id : "")}/${item.flag.id}`);
    addFlag({ board: item.board, round: item.round ?? (s ? s.round : null),
      game_id: item.game_id ?? (s ? s.game_id : null), flag: item.flag,
      wall: item.wall ?? (old ? old.wall : Date.now() / 1000 + skew) }, true);
    render();
  });
  return source;
}

async function sendPairings() {
  const status = $("pairings-status");
  status.className = "";
  status.textContent = _("sending…");
  try {
    const r = await fetch("/api/pairings", { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "text/csv" }, body: $("pairings-csv").value });
    const body = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(body.error || `${r.status}`);
    status.textContent = fmt(ngettext("{n} pairing kept", "{n} pairings kept", body.kept), { n: body.kept }) + " (" +
      fmt(ngettext("round {rounds}", "rounds {rounds}", body.rounds.length), { rounds: body.rounds.join(", ") }) + ")" +
      (body.pushed ? "; " + fmt(_("{n} of the round in play sent"), { n: body.pushed }) : "");
    await loadRounds();
  } catch (e) {
    status.className = "error";
    status.textContent = fmt(_("refused: {error}"), { error: e.message });
  }
}

// ---- start a round: its boards, ready or not and why, until every clock runs
const STATES = { not_ready: _("not ready"), ready: _("starting the clock"), started: _("clock started"),
  over: _("game over") };
let shownRound = null;
let roundTimer = null;

async function loadRounds() {
  const got = await api("/api/rounds");
  const select = $("round-select");
  const keep = select.value;
  select.replaceChildren(...got.rounds.map((r) => h("option", { value: r },
    r === got.current ? fmt(_("{round} (started)"), { round: r }) : r)));
  if (got.rounds.includes(keep)) select.value = keep;
  else if (got.current) select.value = got.current;
  if (got.current && shownRound === null) showRound(got.current);
}

function renderRound(got) {
  const rows = got.boards;
  const waiting = rows.filter((b) => b.state === "not_ready");
  $("round-status").className = "";
  $("round-status").textContent = got.started
    ? fmt(ngettext("round {round}: {started} of {n} board started or starting",
      "round {round}: {started} of {n} boards started or starting", rows.length),
    { round: got.round, started: rows.length - waiting.length, n: rows.length }) +
      (waiting.length ? "; " + fmt(_("{n} not ready"), { n: waiting.length }) : "")
    : fmt(_("round {round} is not started"), { round: got.round });
  $("round-boards").querySelector("tbody").replaceChildren(...rows.map((b) =>
    h("tr", { "data-board": b.board, class: b.state },
      h("td", {}, b.board), h("td", {}, b.white || "?"), h("td", {}, b.black || "?"),
      h("td", {}, STATES[b.state] || b.state), h("td", {}, localize(b.why || "")))));
}

function showRound(rnd) {
  shownRound = rnd;
  clearTimeout(roundTimer);
  const poll = async () => {
    try { renderRound(await api(`/api/rounds/${encodeURIComponent(rnd)}`)); } catch { /* next time */ }
    if (shownRound === rnd) roundTimer = setTimeout(poll, 2000);
  };
  poll();
}

async function startRound() {
  const rnd = $("round-select").value;
  if (!rnd) return;
  $("round-status").className = "";
  $("round-status").textContent = fmt(_("starting round {round}…"), { round: rnd });
  try {
    renderRound(await api(`/api/rounds/${encodeURIComponent(rnd)}/start`, {}));
    showRound(rnd);
    await loadRounds();
  } catch (e) {
    $("round-status").className = "error";
    $("round-status").textContent = fmt(_("refused: {error}"), { error: e.message });
  }
}

$("round-start").addEventListener("click", startRound);
$("pairings-file").addEventListener("change", async (ev) => {
  const file = ev.target.files[0];
  if (file) $("pairings-csv").value = await file.text();
});
$("pairings-send").addEventListener("click", sendPairings);
for (const id of ["board-filter", "round-filter", "status-filter"]) $(id).addEventListener("change", render);

let source = null;
async function start() {
  await loadHall();
  if (!arbiter) {
    loginBox($("login"), () => { if (source) source.close(); begin(); });
    $("conn").textContent = _("log in");
    return;
  }
  await Promise.all([loadFlags(), loadResults(), loadAlarms(), loadRounds()]);
  source = follow();
  setInterval(silent, 5000);
}
// a hub down, or just started and reading its games back (503 until it has, HUB_API.md): said,
// and the console loaded again in a few seconds
function begin() {
  start().catch((e) => {
    $("conn").textContent = fmt(_("hub not reachable ({error})"), { error: e.message });
    setTimeout(() => location.reload(), 5000);
  });
}
begin();
