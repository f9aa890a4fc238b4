// The board: an SVG drawing of a FEN with the traditional pieces (outlines from glyphs.js, so no
// CJK font is needed), moves by click or drag. Files a-i left to right, ranks 0-9 bottom to top
// (red's side at the bottom unless flipped), as in ICCS.

import { GLYPHS } from "./glyphs.js";

const NS = "http://www.w3.org/2000/svg";
const CELL = 100;
const MARGIN = 74;
const W = 8 * CELL + 2 * MARGIN;
const H = 9 * CELL + 2 * MARGIN;
const CHARS = {
  K: "帥", A: "仕", B: "相", E: "相", N: "傌", H: "傌", R: "俥", C: "炮", P: "兵",
  k: "將", a: "士", b: "象", e: "象", n: "馬", h: "馬", r: "車", c: "砲", p: "卒",
};

function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// Squares of a FEN's placement: { "e0": "K", ... }.
export function placement(fen) {
  const rows = fen.split(" ")[0].split("/");
  const out = {};
  rows.forEach((row, i) => {
    const rank = 9 - i;
    let file = 0;
    for (const ch of row) {
      if (/[1-9]/.test(ch)) file += Number(ch);
      else { out["abcdefghi"[file] + rank] = ch; file += 1; }
    }
  });
  return out;
}

export class Board {
  constructor(root, onMove) {
    this.root = root;
    this.onMove = onMove;
    this.flipped = false;
    this.legal = [];
    this.selected = null;
    this.fen = "";
    this.last = null;
    this.svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "board-svg", role: "img" }, root);
    this.svg.addEventListener("pointerdown", (e) => this.down(e));
    this.svg.addEventListener("pointerup", (e) => this.up(e));
    this.svg.addEventListener("pointermove", (e) => this.drag(e));
  }

  xy(sq) {
    let f = "abcdefghi".indexOf(sq[0]);
    let r = Number(sq[1]);
    if (this.flipped) { f = 8 - f; r = 9 - r; }
    return [MARGIN + f * CELL, MARGIN + (9 - r) * CELL];
  }

  square(evt) {
    const pt = this.svg.createSVGPoint();
    pt.x = evt.clientX; pt.y = evt.clientY;
    const p = pt.matrixTransform(this.svg.getScreenCTM().inverse());
    let f = Math.round((p.x - MARGIN) / CELL);
    let r = 9 - Math.round((p.y - MARGIN) / CELL);
    if (f < 0 || f > 8 || r < 0 || r > 9) return null;
    if (this.flipped) { f = 8 - f; r = 9 - r; }
    return "abcdefghi"[f] + r;
  }

  set(fen, legal, last) {
    this.fen = fen;
    this.legal = legal || [];
    this.last = last || null;
    this.selected = null;
    this.draw();
  }

  grid(g) {
    const line = (x1, y1, x2, y2) => el("line", { x1, y1, x2, y2 }, g);
    for (let r = 0; r < 10; r++) line(MARGIN, MARGIN + r * CELL, MARGIN + 8 * CELL, MARGIN + r * CELL);
    for (let f = 0; f < 9; f++) {
      const x = MARGIN + f * CELL;
      if (f === 0 || f === 8) line(x, MARGIN, x, MARGIN + 9 * CELL);
      else { line(x, MARGIN, x, MARGIN + 4 * CELL); line(x, MARGIN + 5 * CELL, x, MARGIN + 9 * CELL); }
    }
    const x3 = MARGIN + 3 * CELL, x5 = MARGIN + 5 * CELL;
    line(x3, MARGIN, x5, MARGIN + 2 * CELL); line(x5, MARGIN, x3, MARGIN + 2 * CELL);
    line(x3, MARGIN + 7 * CELL, x5, MARGIN + 9 * CELL); line(x5, MARGIN + 7 * CELL, x3, MARGIN + 9 * CELL);
    el("rect", { x: MARGIN - 8, y: MARGIN - 8, width: 8 * CELL + 16, height: 9 * CELL + 16, class: "frame" }, g);
    for (let f = 0; f < 9; f++) {
      const label = this.flipped ? "abcdefghi"[8 - f] : "abcdefghi"[f];
      const t = el("text", { x: MARGIN + f * CELL, y: H - 6, class: "coord" }, g);
      t.textContent = label;
    }
    for (let r = 0; r < 10; r++) {
      const label = this.flipped ? r : 9 - r;
      const t = el("text", { x: 12, y: MARGIN + r * CELL + 8, class: "coord" }, g);
      t.textContent = label;
    }
  }

  draw() {
    const svg = this.svg;
    // Black's side at the bottom: said on the element too (for styles and tests).
    this.root.dataset.flipped = String(this.flipped);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    el("rect", { x: 0, y: 0, width: W, height: H, class: "wood" }, svg);
    this.grid(el("g", { class: "grid" }, svg));
    const marks = el("g", { class: "marks" }, svg);
    if (this.last) {
      for (const sq of [this.last.slice(0, 2), this.last.slice(2, 4)]) {
        const [x, y] = this.xy(sq);
        el("rect", { x: x - 48, y: y - 48, width: 96, height: 96, class: "last" }, marks);
      }
    }
    const pieces = placement(this.fen);
    const layer = el("g", { class: "pieces" }, svg);
    for (const [sq, ch] of Object.entries(pieces)) {
      const [x, y] = this.xy(sq);
      const red = ch === ch.toUpperCase();
      const g = el("g", { class: `piece ${red ? "red" : "black"}${sq === this.selected ? " selected" : ""}`,
        transform: `translate(${x} ${y})`, "data-square": sq, "data-piece": ch }, layer);
      el("circle", { r: 44, class: "disc" }, g);
      el("circle", { r: 38, class: "ring" }, g);
      const glyph = GLYPHS[CHARS[ch]];
      if (glyph) el("path", { d: glyph, transform: "scale(0.058)", class: "glyph" }, g);
    }
    if (this.selected) {
      // Above the pieces, so that a capture's target can be clicked too.
      const targets = el("g", { class: "targets" }, svg);
      for (const m of this.legal.filter((m) => m.startsWith(this.selected))) {
        const [x, y] = this.xy(m.slice(2, 4));
        el("circle", { cx: x, cy: y, r: 16, class: "target", "data-move": m }, targets);
      }
    }
  }

  down(e) {
    const sq = this.square(e);
    if (!sq) return;
    if (this.selected && this.legal.includes(this.selected + sq)) {
      const m = this.selected + sq;
      this.selected = null;
      this.onMove(m);
      return;
    }
    if (this.legal.some((m) => m.startsWith(sq))) {
      this.selected = sq;
      this.dragging = { from: sq, moved: false };
      this.draw();
      this.svg.setPointerCapture?.(e.pointerId);
    } else if (this.selected) {
      this.selected = null;
      this.draw();
    }
  }

  drag(e) {
    if (!this.dragging) return;
    const g = this.svg.querySelector(`g.piece[data-square="${this.dragging.from}"]`);
    if (!g) return;
    const pt = this.svg.createSVGPoint();
    pt.x = e.clientX; pt.y = e.clientY;
    const p = pt.matrixTransform(this.svg.getScreenCTM().inverse());
    const [x, y] = this.xy(this.dragging.from);
    if (Math.hypot(p.x - x, p.y - y) > 20) this.dragging.moved = true;
    if (this.dragging.moved) g.setAttribute("transform", `translate(${p.x} ${p.y})`);
  }

  up(e) {
    const d = this.dragging;
    this.dragging = null;
    if (!d || !d.moved) return;
    const sq = this.square(e);
    if (sq && this.legal.includes(d.from + sq)) {
      this.selected = null;
      this.onMove(d.from + sq);
    } else {
      this.draw();
    }
  }
}
