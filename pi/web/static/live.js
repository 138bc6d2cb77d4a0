// Clock faces, the event stream and small helpers shared by the pages.
import { _, fmt } from "./i18n.js";

/** The face text of `ms` milliseconds, as engine/clock_display.py format_time_full with the
 * default rules (what a DGT3000 or a lichess board shows): "1:05:00" from an hour up, "58:12",
 * "9:58" from 20 s up, "0:19.9" below; always floored, so the face changes every second. */
export function formatTime(ms) {
  ms = Math.floor(ms);
  if (!(ms >= 0)) ms = 0;  // a face never shows a negative time: the flag shows 0:00.0
  const two = (n) => String(n).padStart(2, "0");
  if (ms >= 20000) {
    const seconds = Math.floor(ms / 1000);
    const hours = Math.floor(seconds / 3600), minutes = Math.floor(seconds / 60) % 60;
    return hours ? `${hours}:${two(minutes)}:${two(seconds % 60)}`
      : `${minutes}:${two(seconds % 60)}`;
  }
  const tenths = Math.floor(ms / 100), seconds = Math.floor(tenths / 10);
  return `${Math.floor(seconds / 60)}:${two(seconds % 60)}.${tenths % 10}`;
}

/** Seconds (float, as the API gives them) to whole milliseconds, without the float's 0.9999...
 * dropping a millisecond (1795.3 * 1000 = 1795299.9999999998). */
export function secondsToMs(seconds) {
  return Math.floor(Math.round(seconds * 1e6) / 1e3);
}

/**
 * The clock as it stands now, from the last reading {white, black, running, state, server_time}.
 * The running side's time is the reading less the seconds since `server_time` (the board's Unix
 * time of the reading). The browser's clock may be off the board's (a phone without network
 * time): when the elapsed time it gives is negative or beyond a minute, the time since the
 * reading arrived (`receivedAt`, performance.now() ms) is used instead.
 */
export function clockNow(clock, receivedAt, nowMs = performance.now(), wallNow = Date.now()) {
  const out = { white: secondsToMs(clock.white), black: secondsToMs(clock.black) };
  const running = clock.running;
  if (running && (clock.state === "running" || clock.state === undefined)) {
    let elapsed = wallNow - clock.server_time * 1000;
    if (!(elapsed >= -50 && elapsed <= 60000)) elapsed = nowMs - receivedAt;
    out[running] = Math.max(0, out[running] - Math.max(0, elapsed));
  }
  return out;
}

/**
 * Follow /events: `handlers[name](data, id)` for each event. EventSource reconnects by itself
 * (sending Last-Event-ID); when the server closes for good (an error status, e.g. 503 with too
 * many clients) we reconnect after a pause with ?last_event_id= so nothing is lost or repeated.
 * `onStatus(text)` is told "live", "reconnecting…".
 */
export function followEvents(handlers, onStatus = () => {}) {
  let lastId = null, gameId = null, source = null, delay = 1000, stopped = false;
  const names = ["state", "move", "flag", "clock", "result"];
  function open() {
    // ids are journal lines and restart with each game: the game they belong to goes along,
    // so that an id from a game since ended gets the whole state (API.md)
    const game = gameId === null ? "" : `&game=${encodeURIComponent(gameId)}`;
    const url = lastId === null ? "events"
      : `events?last_event_id=${encodeURIComponent(lastId)}${game}`;
    source = new EventSource(url);
    source.onopen = () => { delay = 1000; onStatus(_("live")); };
    source.onerror = () => {
      onStatus(_("reconnecting…"));
      if (source.readyState === EventSource.CLOSED && !stopped) {
        setTimeout(open, delay);
        delay = Math.min(delay * 2, 15000);
      }
    };
    for (const name of names) {
      source.addEventListener(name, (ev) => {
        if (ev.lastEventId) lastId = ev.lastEventId;
        let data;
        try { data = JSON.parse(ev.data); } catch { return; }
        if (name === "state" && data.game_id) gameId = data.game_id;
        if (handlers[name]) handlers[name](data, ev.lastEventId);
      });
    }
  }
  open();
  return { close() { stopped = true; if (source) source.close(); } };
}

/** fetch JSON; throws Error("status: error text") on a non-2xx answer. */
export async function api(path, body) {
  const init = body === undefined ? { credentials: "same-origin" } : {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const r = await fetch(path, init);
  let data = null;
  try { data = await r.json(); } catch { data = null; }
  if (!r.ok) throw new Error(`${r.status}: ${(data && data.error) || r.statusText}`);
  return data;
}

/** A text element helper: h("li", {class: "x"}, "text", child...). */
export function h(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "onclick") e.addEventListener("click", v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

/** Game seconds as m:ss.s for the lists ("12:03.4"). */
export function gameTime(t) {
  if (typeof t !== "number") return "";
  const m = Math.floor(t / 60), s = t - m * 60;
  return `${m}:${s.toFixed(1).padStart(4, "0")}`;
}

/** The move list in PDN: "1. 22-18 10-14 2. ..." as rows [number, white, black] (a game may begin
 * with Black: English, or a FEN with Black to move). */
export function moveRows(moves) {
  const rows = [];
  let row = null, number = 0;
  for (const m of moves) {
    if (m.side === "white" || !row || row[2] !== null) {
      number += 1;
      row = [number, null, null];
      rows.push(row);
    }
    if (m.side === "white") row[1] = m; else row[2] = m;
  }
  return rows;
}

/** The login box: posts the token for the HttpOnly cookie; calls onLogin() once accepted. */
export function loginBox(container, onLogin) {
  const input = h("input", { type: "password", id: "token", autocomplete: "current-password",
    "aria-label": _("arbiter token") });
  const status = h("span", { class: "login-status", role: "status" });
  // the password manager's username, so that the form is a complete login form
  const user = h("input", { type: "text", autocomplete: "username", value: "arbiter",
    hidden: true, "aria-hidden": "true", tabindex: "-1" });
  const form = h("form", { class: "login" }, user,
    h("label", { for: "token" }, _("Arbiter token") + " "), input,
    h("button", { type: "submit" }, _("Log in")),
    status);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      await api("api/login", { token: input.value.trim() });
      input.value = "";
      status.textContent = "";
      onLogin();
    } catch (e) {
      status.textContent = fmt(_("refused ({reason})"), { reason: e.message });
    }
  });
  container.replaceChildren(form);
}
