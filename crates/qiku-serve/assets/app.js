// The explorer page: keeps a start position and a list of moves, asks /api/explore for the
// position at the current ply, and shows the board, the book's and the tables' moves, the
// engine's line and the recent games. The URL names the position (?fen=&moves=&ply=&n=).

import { Board } from "./board.js";

const START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
const $ = (id) => document.getElementById(id);

const state = {
  start: START,
  moves: [],
  ply: 0,
  notation: localStorage.getItem("qiku-notation") || "chinese",
  rules: "asian",
  data: null,
  // The names of the line's moves met so far (kept when stepping back), by ply.
  names: [],
  engine: false,
  seq: 0,
};

const board = new Board($("board"), (m) => play(m));

function readUrl() {
  const q = new URLSearchParams(location.search);
  if (q.get("fen")) state.start = q.get("fen");
  if (q.get("moves")) state.moves = q.get("moves").split(/[ ,]+/).filter(Boolean);
  state.ply = q.has("ply") ? Math.max(0, Math.min(state.moves.length, Number(q.get("ply")) || 0)) : state.moves.length;
  if (["chinese", "wxf", "iccs"].includes(q.get("n"))) state.notation = q.get("n");
  if (q.get("rules") === "plain") state.rules = "plain";
}

function writeUrl() {
  const q = new URLSearchParams();
  if (state.start !== START) q.set("fen", state.start);
  if (state.moves.length) q.set("moves", state.moves.join(","));
  if (state.ply !== state.moves.length) q.set("ply", String(state.ply));
  if (state.notation !== "chinese") q.set("n", state.notation);
  if (state.rules !== "asian") q.set("rules", state.rules);
  const s = q.toString();
  history.replaceState(null, "", s ? `?${s}` : location.pathname);
}

function name(m) {
  return m[state.notation] || m.iccs;
}

// A move's table value for the side that plays it: "Win in 13", "Draw", "Loss in 12", or a win or
// loss only the Asian rules decide ("AR" marks it in the table).
function valueText(v) {
  if (!v) return "";
  if (v.wdl === "draw") return "Draw";
  const n = Math.abs(v.dtm);
  if (v.by_rule) return v.wdl === "win" ? "Win (rules)" : "Loss (rules)";
  if (v.wdl === "win") return `Win in ${n}`;
  return n === 0 ? "Mated" : `Loss in ${n}`;
}

function pct(n, total) {
  return total > 0 ? (100 * n) / total : 0;
}

function bar(t) {
  const decided = t.red + t.draws + t.black;
  const wrap = document.createElement("div");
  wrap.className = "bar";
  for (const [cls, n] of [["r", t.red], ["d", t.draws], ["b", t.black]]) {
    const s = document.createElement("span");
    s.className = cls;
    const p = pct(n, decided);
    s.style.width = `${p}%`;
    if (p >= 12) s.textContent = `${Math.round(p)}%`;
    wrap.appendChild(s);
  }
  if (!decided) wrap.classList.add("none");
  return wrap;
}

async function refresh() {
  const seq = ++state.seq;
  writeUrl();
  const q = new URLSearchParams({ fen: state.start, moves: state.moves.slice(0, state.ply).join(" "), rules: state.rules });
  let data;
  try {
    const r = await fetch(`/api/explore?${q}`);
    data = await r.json();
    if (!r.ok) throw new Error(data.error || r.statusText);
  } catch (e) {
    if (seq !== state.seq) return;
    $("status").textContent = `Error: ${e.message}`;
    $("status").className = "status error";
    return;
  }
  if (seq !== state.seq) return;
  state.data = data;
  data.played.forEach((m, i) => { state.names[i] = m; });
  render();
}

function render() {
  const d = state.data;
  board.set(d.fen, d.legal, state.ply > 0 ? state.moves[state.ply - 1] : null);
  $("fen").value = d.fen;
  const side = d.turn === "red" ? "Red" : "Black";
  let status = `${side} to move`;
  if (d.status === "checkmate") status = `${side} is checkmated`;
  if (d.status === "stalemate") status = `${side} has no move (stalemate: ${side.toLowerCase()} loses)`;
  $("status").textContent = status;
  $("status").className = "status";

  const pos = $("position");
  pos.replaceChildren();
  if (d.tablebase) {
    const p = document.createElement("p");
    p.className = `tb ${d.tablebase.wdl}`;
    p.dataset.wdl = d.tablebase.wdl;
    const v = d.tablebase;
    const n = Math.abs(v.dtm);
    const plies = `${n} ${n === 1 ? "ply" : "plies"}`;
    let text = "draw";
    if (v.by_rule) text = v.wdl === "win" ? "wins by the perpetual-check rule" : "loses by the perpetual-check rule";
    else if (v.wdl === "win") text = `wins, mate in ${plies}`;
    else if (v.wdl === "loss") text = n === 0 ? "is mated" : `loses, mated in ${plies}`;
    p.textContent = `Table (${d.rules} rules): ${side.toLowerCase()} to move ${text}`;
    pos.appendChild(p);
  }
  if (d.book && d.book.games > 0) {
    const p = document.createElement("div");
    p.className = "total";
    const label = document.createElement("span");
    label.textContent = `${d.book.games} games`;
    p.append(label, bar(d.book));
    pos.appendChild(p);
  }

  const tbody = $("explorer").querySelector("tbody");
  tbody.replaceChildren();
  for (const m of d.moves) {
    const tr = document.createElement("tr");
    tr.dataset.move = m.iccs;
    const c1 = document.createElement("td");
    c1.className = "mv";
    c1.textContent = name(m);
    const c2 = document.createElement("td");
    c2.className = "num";
    c2.textContent = m.games ? String(m.games) : "";
    const c3 = document.createElement("td");
    c3.className = "barcol";
    if (m.games) c3.appendChild(bar(m));
    const c4 = document.createElement("td");
    c4.className = `tbv ${m.tablebase ? m.tablebase.wdl : ""}${m.tablebase && m.tablebase.by_rule ? " rule" : ""}`;
    c4.textContent = valueText(m.tablebase);
    if (m.best) c4.textContent += " ★";
    tr.append(c1, c2, c3, c4);
    tr.addEventListener("click", () => play(m.iccs));
    tbody.appendChild(tr);
  }
  $("empty").hidden = d.moves.length > 0 || d.status !== "ok";
  // Without book games (a table position) the games and bar columns stay empty: hide them.
  $("explorer").classList.toggle("no-book", !d.moves.some((m) => m.games > 0));

  const played = $("played");
  played.replaceChildren();
  const startRed = state.start.split(" ")[1] !== "b";
  const item = (i, text, cls) => {
    // Move numbers before red's moves, and "1..." before a first move by black.
    let label = null;
    if (startRed && i % 2 === 0) label = `${i / 2 + 1}.`;
    else if (!startRed && i === 0) label = "1...";
    else if (!startRed && i % 2 === 1) label = `${(i + 1) / 2 + 1}.`;
    if (label) {
      const n = document.createElement("span");
      n.className = "no";
      n.textContent = label;
      played.appendChild(n);
    }
    const b = document.createElement("button");
    b.type = "button";
    b.className = `ply ${cls}`;
    b.dataset.ply = String(i + 1);
    b.textContent = text;
    b.addEventListener("click", () => go(i + 1));
    played.appendChild(b);
  };
  d.played.forEach((m, i) => item(i, name(m), i === state.ply - 1 ? "current" : ""));
  for (let i = d.played.length; i < state.moves.length; i++) {
    const known = state.names[i] && state.names[i].iccs === state.moves[i];
    item(i, known ? name(state.names[i]) : state.moves[i], "future");
  }

  const recent = $("recent");
  recent.replaceChildren();
  $("recent-title").hidden = !d.recent_games.length;
  for (const g of d.recent_games) {
    const li = document.createElement("li");
    li.textContent = `${g.red} – ${g.black}, ${g.result}, ${g.event} ${g.date}`;
    li.addEventListener("click", () => openGame(g.n));
    recent.appendChild(li);
  }
  $("engine-out").textContent = "";
}

// A listed game is fetched whole when clicked and replayed from its own start to this position.
async function openGame(n) {
  const q = new URLSearchParams({ fen: state.start, moves: state.moves.slice(0, state.ply).join(" "), n: String(n) });
  try {
    const r = await fetch(`/api/game?${q}`);
    const g = await r.json();
    if (!r.ok) throw new Error(g.error || r.statusText);
    state.start = g.fen;
    state.names = [];
    state.moves = g.moves.slice();
    state.ply = Math.min(g.ply, state.moves.length);
    refresh();
  } catch (e) {
    $("status").textContent = `Error: ${e.message}`;
    $("status").className = "status error";
  }
}

function play(m) {
  // Playing the move that comes next keeps the rest of the line.
  if (state.moves[state.ply] !== m) state.moves = state.moves.slice(0, state.ply).concat([m]);
  state.ply += 1;
  refresh();
}

function go(ply) {
  const p = Math.max(0, Math.min(state.moves.length, ply));
  if (p === state.ply) return;
  state.ply = p;
  refresh();
}

async function analyze() {
  const out = $("engine-out");
  if (!state.engine) {
    out.textContent = "The engine is off (start the server with --engine).";
    return;
  }
  out.textContent = "Thinking…";
  const q = new URLSearchParams({ fen: state.data.fen, movetime: "1000" });
  try {
    const r = await fetch(`/api/analyze?${q}`);
    const a = await r.json();
    if (!r.ok) throw new Error(a.error);
    const score = a.mate != null ? `mate in ${a.mate}` : `${a.cp > 0 ? "+" : ""}${a.cp}`;
    out.textContent = `${score} (depth ${a.depth}): ${a.pv.map(name).join(" ")}`;
  } catch (e) {
    out.textContent = `Engine: ${e.message}`;
  }
}

function setup() {
  readUrl();
  $("notation").value = state.notation;
  $("notation").addEventListener("change", (e) => {
    state.notation = e.target.value;
    localStorage.setItem("qiku-notation", state.notation);
    writeUrl();
    if (state.data) render();
  });
  $("rules").value = state.rules;
  $("rules").addEventListener("change", (e) => {
    state.rules = e.target.value;
    refresh();
  });
  $("first").addEventListener("click", () => go(0));
  $("back").addEventListener("click", () => go(state.ply - 1));
  $("fwd").addEventListener("click", () => go(state.ply + 1));
  $("last").addEventListener("click", () => go(state.moves.length));
  $("flip").addEventListener("click", () => { board.flipped = !board.flipped; board.draw(); });
  $("analyze").addEventListener("click", analyze);
  $("fenform").addEventListener("submit", (e) => {
    e.preventDefault();
    state.start = $("fen").value.trim() || START;
    state.names = [];
    state.moves = [];
    state.ply = 0;
    refresh();
  });
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === "ArrowLeft") go(state.ply - 1);
    else if (e.key === "ArrowRight") go(state.ply + 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(state.moves.length);
    else return;
    e.preventDefault();
  });
  fetch("/api/info").then((r) => r.json()).then((i) => {
    state.engine = i.engine;
    $("analyze").disabled = !i.engine;
    if (!i.engine) $("analyze").title = "Start the server with --engine";
  }).catch(() => {});
  refresh();
}

setup();
