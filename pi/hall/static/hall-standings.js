// The event's standings after a round (HUB_API.md GET /api/standings): rank, points, the
// tie-breaks hub.toml names in their order, and each player's games round by round. Followed
// live: a board's result changing on the hall's stream (/events) reloads them.
import { api, h } from "/static/live.js";
import { _, fmt } from "/static/i18n.js";

const $ = (id) => document.getElementById(id);
// the tie-breaks' names (pi/hall/standings.py TIE_BREAKS), as the page shows them
const TIE_BREAK_TEXT = {
  "buchholz": _("Buchholz"),
  "sonneborn-berger": _("Sonneborn-Berger"),
  "wins": _("wins"),
  "direct-encounter": _("direct encounter"),
};
const results = new Map();  // board -> result shown on the hall's stream
let chosen = "";            // the round the viewer chose ("": the newest with a result)

function number(v) {
  if (v === null || v === undefined) return "–";
  return Number.isInteger(v) ? String(v) : String(v).replace(/\.5$/, "½").replace(/^0½$/, "½");
}

function game(g) {
  const side = g.colour === "white" ? "○" : "●";
  const score = g.points === null ? "*" : number(g.points);
  return h("td", { class: "game", title: fmt(_("board {board}: {result}"), { board: g.board, result: g.result }) },
    `${score} ${side} ${g.opponent}`);
}

function render(data) {
  $("event").textContent = data.event || "";
  document.title = `${_("Standings")} — ${data.event || "damiera"}`;
  $("scoring").textContent = fmt(_("points {points}; tie-breaks: {tie_breaks}"), {
    points: data.points,
    tie_breaks: data.tie_break.map((t) => TIE_BREAK_TEXT[t] || t).join(", ") || _("none") });
  const select = $("round-select");
  const have = [...select.options].map((o) => o.value);
  if (have.join("\n") !== data.rounds.join("\n")) {
    select.replaceChildren(...data.rounds.map((r) => h("option", { value: r }, r)));
  }
  select.value = data.round ?? "";
  const upto = data.rounds.slice(0, data.rounds.indexOf(data.round) + 1);
  $("standings").querySelector("thead").replaceChildren(h("tr", {},
    h("th", {}, "#"), h("th", {}, _("player")), h("th", {}, _("points")), h("th", {}, _("games")),
    h("th", {}, _("won")), h("th", {}, _("drawn")), h("th", {}, _("lost")),
    ...data.tie_break.map((t) => h("th", { class: "tie-break", "data-tie-break": t }, TIE_BREAK_TEXT[t] || t)),
    ...upto.map((r) => h("th", { class: "round" }, fmt(_("round {round}"), { round: r })))));
  $("standings").querySelector("tbody").replaceChildren(...data.players.map((p) => {
    const byRound = new Map();
    for (const g of p.rounds) if (!byRound.has(g.round)) byRound.set(g.round, g);
    return h("tr", { "data-player": p.name, class: p.tied ? "tied" : null },
      h("td", { class: "rank" }, p.tied ? `${p.rank}=` : String(p.rank)),
      h("td", { class: "name" }, p.name), h("td", { class: "points" }, number(p.points)),
      h("td", {}, p.games), h("td", {}, p.wins), h("td", {}, p.draws), h("td", {}, p.losses),
      ...data.tie_break.map((t) => h("td", { class: "tie-break", "data-tie-break": t }, number(p.tie_breaks[t]))),
      ...upto.map((r) => byRound.has(r) ? game(byRound.get(r)) : h("td", { class: "game muted" }, "–")));
  }));
  $("standings-empty").hidden = data.players.length > 0;
  $("tied-note").hidden = !data.players.some((p) => p.tied);
}

async function load() {
  const query = chosen ? `?round=${encodeURIComponent(chosen)}` : "";
  try {
    render(await api(`/api/standings${query}`));
  } catch (e) {
    $("conn").textContent = fmt(_("standings not reachable ({error}); retrying"), { error: e.message });
    setTimeout(load, 3000);
  }
}

function follow() {
  // a result reaches the hall's stream as the board's summary: the standings are read again
  const source = new EventSource("/events");
  let due = null;
  source.onopen = () => { $("conn").textContent = _("live"); };
  source.onerror = () => {
    $("conn").textContent = _("reconnecting…");
    if (source.readyState === EventSource.CLOSED) setTimeout(follow, 3000);
  };
  source.addEventListener("board", (ev) => {
    let s;
    try { s = JSON.parse(ev.data); } catch { return; }
    const before = results.get(s.board);
    results.set(s.board, `${s.game_id}/${s.result}`);
    if (before !== undefined && before !== results.get(s.board)) {
      clearTimeout(due);
      due = setTimeout(load, 500);
    }
  });
}

$("round-select").addEventListener("change", () => { chosen = $("round-select").value; load(); });
load().then(follow);
