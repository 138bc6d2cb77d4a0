// The page's language: its catalog (put in the page by the server, pi/web/i18n.py, from the same
// gettext catalogs as everything else), the messages of the scripts, dates and times in the
// viewer's locale, and the language switch every page shows. Messages are English in the code
// (the msgid), marked _("…") or ngettext("…", "…", n) so that Babel extracts them (babel.cfg);
// placeholders are {name}, filled by fmt().

const data = (() => {
  const node = document.getElementById("i18n-catalog");
  try { return node ? JSON.parse(node.textContent) : {}; } catch { return {}; }
})();

/** The page's language ("en", "it"). */
export const lang = data.lang || document.documentElement.lang || "en";
/** The languages a page can be read in, with their own names. */
export const LANGUAGES = [["en", "English"], ["it", "Italiano"]];
const messages = data.messages || {};

// gettext's Plural-Forms expression (C syntax: n, numbers, comparisons, && || ?: %), checked to
// hold nothing else before it is compiled.
const pluralIndex = (() => {
  const expr = data.plural || "(n != 1)";
  if (!/^[n0-9\s()!=<>&|?:%]+$/.test(expr)) return (n) => (n === 1 ? 0 : 1);
  const f = new Function("n", `return Number(${expr});`);
  return (n) => f(n);
})();

/** The translation of `msgid` (itself when the catalog has none). */
export function _(msgid) {
  const m = messages[msgid];
  return typeof m === "string" && m ? m : msgid;
}

/** The form of a message for the count `n` (the catalog's plural rule; English's without). */
export function ngettext(singular, plural, n) {
  const m = messages[singular];
  if (Array.isArray(m)) {
    const form = m[pluralIndex(n)];
    if (form) return form;
  }
  return n === 1 ? singular : plural;
}

// What a board's line may begin with and is never translated: an article code or a result.
const LEAD = "(?:IT|EN|INT|BR|COMP)(?: \\d[\\w.]*)?|BOARD|1-0|0-1|1/2-1/2|2-0|0-2|1-1|0-0";
// The catalog's template messages ("moved {a}-{b}, not a legal move"), most specific first, as
// patterns that recognise the English text made from them (engine/i18n.py localize, the same).
const templates = (() => {
  const out = [];
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  for (const [msgid, m] of Object.entries(messages)) {
    const forms = Array.isArray(m) ? [msgid, ...(data.plurals?.[msgid] ? [data.plurals[msgid]] : [])] : [msgid];
    for (const text of forms) {
      const names = [];
      const literal = text.replace(/\{(\w+)\}/g, "");
      if (literal === text || !literal.trim()) continue;
      const source = text.split(/(\{\w+\})/).map((part) => {
        const f = /^\{(\w+)\}$/.exec(part);
        if (!f) return escape(part);
        names.push(f[1]);
        // a value never begins with an article code or a result (but {code} and {code_…},
        // which are one)
        return f[1] === "code" || f[1].startsWith("code_") ? `(${LEAD})`
          : `((?!(?:${LEAD}) )[\\s\\S]+?)`;
      }).join("");
      out.push({ msgid, names, re: new RegExp(`^${source}$`), literal: literal.length });
    }
  }
  return out.sort((a, b) => b.literal - a.literal);
})();

/** `text`, an English message as the board wrote it (a flag's text, the board's message line),
 * in the page's language: its translation, or the translation of the template it was made from
 * filled with the same values (each localized too; {n} chooses the plural form); as it is when
 * the catalog does not know it (a name, an arbiter's note). */
export function localize(text) {
  if (typeof text !== "string" || !text) return text;
  const exact = messages[text];
  if (typeof exact === "string" && exact) return exact;
  for (const tpl of templates) {
    const m = tpl.re.exec(text);
    if (!m) continue;
    const values = {};
    tpl.names.forEach((name, i) => { values[name] = localize(m[i + 1]); });
    const entry = messages[tpl.msgid];
    const form = Array.isArray(entry)
      ? entry[pluralIndex(/^\d+$/.test(values.n ?? "") ? +values.n : 1)] || entry[0] : entry;
    return fmt(form, values);
  }
  // a leading article code or result ("IT 8.1.3 …", "1-0 …") is kept, the rest is a message
  const prefixed = new RegExp(`^(${LEAD}) ([\\s\\S]+)$`).exec(text);
  if (prefixed) return `${prefixed[1]} ${localize(prefixed[2])}`;
  return text;
}

/** `text` with each {name} replaced by values[name]. */
export function fmt(text, values) {
  return text.replace(/\{(\w+)\}/g, (all, name) => (name in values ? String(values[name]) : all));
}

/** A wall-clock date and time (a Date or Unix seconds) in the page's language, 24-hour. */
export function formatDateTime(when, options = { dateStyle: "medium", timeStyle: "medium" }) {
  const date = when instanceof Date ? when : new Date(when * 1000);
  return new Intl.DateTimeFormat(lang, { ...options, hourCycle: "h23" }).format(date);
}

/** A wall-clock time of day (a Date or Unix seconds) in the page's language, 24-hour. */
export function formatClockTime(when) {
  return formatDateTime(when, { timeStyle: "medium" });
}

/** The switch: a link per language to this page with ?lang= (the server keeps the choice). */
export function languageSwitch() {
  const nav = document.createElement("nav");
  nav.className = "lang-switch";
  nav.setAttribute("aria-label", _("language"));
  for (const [code, name] of LANGUAGES) {
    const url = new URL(window.location.href);
    url.searchParams.set("lang", code);
    const a = document.createElement("a");
    a.href = url.pathname + url.search + url.hash;
    a.lang = code;
    a.hreflang = code;
    a.textContent = name;
    a.id = `lang-${code}`;
    if (code === lang) a.setAttribute("aria-current", "true");
    nav.append(a);
  }
  return nav;
}

// Every page that imports this module shows the switch, in its header.
if (!document.querySelector("nav.lang-switch")) {
  (document.querySelector("header") || document.body).append(languageSwitch());
}
