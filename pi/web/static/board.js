// Board geometry, PDN FEN and the SVG diagram, shared by the three pages (no build step).
//
// The numbering is engine/squares.py's numbered_squares, line for line: square n (1-based) is on row
// r = (n-1) div half counted from the top (Black's side), column c = (n-1) mod half; its file is
// 2c + offset, offset = (r + (firstDarkFileEven ? 0 : 1)) mod 2; its rank is size-1-r.
// Italian: 1 = a8 ... 32 = h1; English, Brazilian: 1 = b8 ... 32 = g1; international: 1 = b10 ... 50 = i1.
import { _, fmt, ngettext } from "./i18n.js";

// A king's mark on the diagram (one letter) and the pieces in words, in the page's language.
const KING_MARK = _("K");
const PIECE_TEXT = { w: _("white man"), b: _("black man"), W: _("white king"), B: _("black king") };

export const VARIANTS = {
  italian: { size: 8, firstDarkFileEven: true, code: "IT" },
  english: { size: 8, firstDarkFileEven: false, code: "EN" },
  international: { size: 10, firstDarkFileEven: false, code: "INT" },
  brazilian: { size: 8, firstDarkFileEven: false, code: "BR" },
};

const FILES = "abcdefghij";
const SVG_NS = "http://www.w3.org/2000/svg";
const geometries = new Map();

/** The geometry of a variant: {size, half, count, nameOf[n], numberOf{name}, coords[n]}. */
export function geometry(variant) {
  const v = VARIANTS[variant] || VARIANTS.italian;
  const key = variant in VARIANTS ? variant : "italian";
  if (geometries.has(key)) return geometries.get(key);
  const size = v.size, half = size / 2, count = size * half;
  const nameOf = [null], numberOf = {}, coords = [null];
  for (let n = 1; n <= count; n++) {
    const r = Math.floor((n - 1) / half), c = (n - 1) % half;
    const offset = (r + (v.firstDarkFileEven ? 0 : 1)) % 2;
    const file = 2 * c + offset, rank = size - 1 - r;
    const name = FILES[file] + (rank + 1);
    nameOf.push(name);
    numberOf[name] = n;
    coords.push([file, rank]);
  }
  const g = { variant: key, size, half, count, nameOf, numberOf, coords };
  geometries.set(key, g);
  return g;
}

/** The algebraic name of a square given as an official number, a numeric string or a name. */
export function squareName(g, token) {
  if (typeof token === "number") return g.nameOf[token] || null;
  const t = String(token).trim().toLowerCase();
  if (/^[0-9]+$/.test(t)) return g.nameOf[parseInt(t, 10)] || null;
  return /^[a-j](10|[1-9])$/.test(t) ? t : null;
}

/** The official number of a dark square (null for a light one). */
export function squareNumber(g, token) {
  const name = squareName(g, token);
  return name && name in g.numberOf ? g.numberOf[name] : null;
}

/** Is the man of `colour` ("w"/"b") on its promotion row at `name`? White promotes on the row of
 * square 1, Black on the row of square `count` (engine/variants.py). */
function onPromotionRow(g, name, colour) {
  const n = g.numberOf[name];
  if (!n) return false;
  return colour === "w" ? n <= g.half : n > g.count - g.half;
}

/** The initial position of a variant: Black on the first `men` squares, White on the last. */
export function initialPosition(variant) {
  const g = geometry(variant);
  const men = g.size === 10 ? 20 : 12;
  const pieces = {};
  for (let n = 1; n <= men; n++) pieces[g.nameOf[n]] = "b";
  for (let n = g.count - men + 1; n <= g.count; n++) pieces[g.nameOf[n]] = "w";
  return { turn: variant === "english" ? "b" : "w", pieces };
}

/** Parse a PDN FEN ("W:W21-32,K5:B1-12", ranges, K before a king, algebraic squares allowed).
 * Returns {turn: "w"|"b", pieces: {name: "w"|"b"|"W"|"B"}}; throws Error on a bad FEN. */
export function parseFen(variant, fen) {
  const g = geometry(variant);
  const text = String(fen || "").trim().replace(/\.$/, "").replace(/^\[FEN\s+"|"\]$/g, "");
  const parts = text.split(":").map((p) => p.trim());
  if (!/^[WB]$/i.test(parts[0] || "")) throw new Error(`bad FEN side to move: ${fen}`);
  const position = { turn: parts[0].toLowerCase(), pieces: {} };
  for (const part of parts.slice(1)) {
    if (!part) continue;
    const colour = part[0].toLowerCase();
    if (colour !== "w" && colour !== "b") throw new Error(`bad FEN field: ${part}`);
    for (let item of part.slice(1).split(",")) {
      item = item.trim();
      if (!item) continue;
      let king = false;
      if (/^k/i.test(item)) { king = true; item = item.slice(1); }
      const range = item.match(/^([0-9]+)-([0-9]+)$/);
      const squares = [];
      if (range) {
        for (let n = +range[1]; n <= +range[2]; n++) squares.push(n);
      } else {
        squares.push(/^[0-9]+$/.test(item) ? +item : item);
      }
      for (const sq of squares) {
        const name = squareName(g, sq);
        if (!name) throw new Error(`bad FEN square: ${item}`);
        position.pieces[name] = king ? colour.toUpperCase() : colour;
      }
    }
  }
  return position;
}

/** The position after a report move (docs/trace-format.md: path and captures in official numbers): the piece
 * goes from path[0] to the path's end, the captured pieces go, a man ending on its far row is
 * crowned. Returns a new position; the input is not changed. */
export function applyMove(variant, position, move) {
  const g = geometry(variant);
  const pieces = { ...position.pieces };
  const path = move.path && move.path.length ? move.path : [move.from, move.to];
  const from = squareName(g, path[0]), to = squareName(g, path[path.length - 1]);
  let piece = pieces[from];
  delete pieces[from];
  for (const c of move.captures || []) delete pieces[squareName(g, c)];
  if (piece === undefined) piece = move.side === "black" ? "b" : "w";
  if ((piece === "w" || piece === "b") && onPromotionRow(g, to, piece)) piece = piece.toUpperCase();
  pieces[to] = piece;
  return { turn: position.turn === "w" ? "b" : "w", pieces };
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

/**
 * Draw a board into `svg` (an <svg> element), seen from White's side (a1 bottom-left), or from
 * Black's with opts.flip. opts: variant, pieces {name: "w"|"b"|"W"|"B"}, numbers (bool: official numbers on the dark
 * squares), lastMove (report move: its path squares are highlighted, captures marked),
 * marks {name: css class} (extra highlights), onClick(name) (makes every square a button).
 */
export function drawBoard(svg, opts) {
  const g = geometry(opts.variant);
  const size = g.size, cell = 10, margin = 4;
  const total = size * cell + margin;
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  svg.setAttribute("viewBox", `${-margin} 0 ${total} ${total}`);
  svg.setAttribute("role", "img");
  svg.classList.add("board");
  svg.dataset.variant = g.variant;
  svg.dataset.flipped = opts.flip ? "true" : "false";
  // the cell of (file, rank): White's side at the bottom, or Black's when flipped
  const at = (file, rank) => opts.flip ? [(size - 1 - file) * cell, rank * cell]
    : [file * cell, (size - 1 - rank) * cell];
  const highlight = new Map();
  if (opts.lastMove) {
    const path = opts.lastMove.path && opts.lastMove.path.length
      ? opts.lastMove.path : [opts.lastMove.from, opts.lastMove.to];
    path.forEach((sq, i) => highlight.set(squareName(g, sq), i === 0 ? "from" : "to"));
    for (const c of opts.lastMove.captures || []) highlight.set(squareName(g, c), "captured");
  }
  for (const [name, cls] of Object.entries(opts.marks || {})) highlight.set(name, cls);
  const count = Object.keys(opts.pieces || {}).length;
  const title = el("title", {}, svg);
  title.textContent = fmt(ngettext("{variant} board, {n} piece", "{variant} board, {n} pieces", count),
    { variant: g.variant, n: count }) +
    (opts.lastMove ? fmt(_(", last move {move}"), { move: opts.lastMove.notation || "" }) : "");
  for (let rank = 0; rank < size; rank++) {
    for (let file = 0; file < size; file++) {
      const name = FILES[file] + (rank + 1);
      const [x, y] = at(file, rank);
      const number = g.numberOf[name];
      const group = el("g", { "data-square": name, class: "sq" }, svg);
      if (number) group.setAttribute("data-number", number);
      const cls = ["cell", number ? "dark" : "light"];
      if (highlight.has(name)) cls.push("hl-" + highlight.get(name));
      el("rect", { x, y, width: cell, height: cell, class: cls.join(" ") }, group);
      const piece = (opts.pieces || {})[name];
      if (piece) {
        const colour = piece === "?" ? "unknown" : piece.toLowerCase() === "w" ? "white" : "black";
        el("circle", { cx: x + 5, cy: y + 5, r: 3.6, class: `piece ${colour}`,
          "data-piece": piece }, group);
        if (piece === "W" || piece === "B") {
          const k = el("text", { x: x + 5, y: y + 6.6, class: `crown ${colour}` }, group);
          k.textContent = KING_MARK;
        }
      }
      if (number && opts.numbers) {  // drawn over the piece, in its corner
        const t = el("text", { x: x + 0.5, y: y + 2.3, class: "num" }, group);
        t.textContent = number;
      }
      if (opts.onClick) {
        group.setAttribute("tabindex", "0");
        group.setAttribute("role", "button");
        const what = piece ? PIECE_TEXT[piece] || piece : _("empty");
        group.setAttribute("aria-label", `${name}${number ? " (" + number + ")" : ""}: ${what}`);
        group.addEventListener("click", () => opts.onClick(name));
        group.addEventListener("keydown", (ev) => {
          if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); opts.onClick(name); }
        });
      }
    }
  }
  // file letters and rank numbers on the edges (seen from the side at the bottom)
  for (let i = 0; i < size; i++) {
    const [fx] = at(i, 0), [, ry] = at(0, i);
    const f = el("text", { x: fx + 5, y: size * cell + 3.2, class: "coord" }, svg);
    f.textContent = FILES[i];
    const r = el("text", { x: -2, y: ry + 6, class: "coord" }, svg);
    r.textContent = i + 1;
  }
  return svg;
}

/** A new <svg> element, drawn with `opts`. */
export function boardSvg(opts) {
  const svg = document.createElementNS(SVG_NS, "svg");
  return drawBoard(svg, opts);
}
