// The explorer page: keeps a start position and a list of moves, asks /api/explore for the
// position at the current ply, and shows the board, the book's and the tables' moves, the
// engine's line and the recent games. The URL names the position (?fen=&moves=&ply=&n=&rules=&flip=);
// a new line (a move off the line, a FEN loaded, a game opened) is a new entry in the browser's
// history, so that Back returns to the line before.

import { Board } from "./board.js";
import { errorText, UNREACHABLE } from "./errors.js";

const START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
const $ = (id) => document.getElementById(id);

// Engine scores from this size up are no evaluation: the search reached a position the tables
// decide, at an unknown distance (the engine's table-win score, as its UCI `score cp`).
const TABLE_WIN_CP = 28615;

// The engine's words while it waits for a position that is loading.
const WAITING = "Waiting for the position…";

const state = {
  // The position shown (the answer in `data` is its): start, moves, ply, rules, and the names of
  // the line's moves met so far (kept when stepping back), by ply.
  start: START,
  moves: [],
  ply: 0,
  rules: "asian",
  names: [],
  data: null,
  notation: localStorage.getItem("qiku-notation") || "chinese",
  // Whether the server runs the engine; null until /api/info has answered.
  engine: null,
  // The position asked for and not yet shown (null when none is in flight), and the number of
  // the latest request: a late answer to an earlier one is dropped.
  pending: null,
  seq: 0,
  // The engine's latest answer for the position shown ({ fen, a }), and the number of its
  // latest request (a position change makes every earlier reply late).
  analysis: null,
  engineSeq: 0,
  // The engine was asked for while a position loaded: it searches that one once it is shown.
  analyzeShown: false,
  // Put the keyboard focus on the first move row after the next render (a move chosen with the
  // keyboard), so that the next one can be chosen the same way.
  focusRows: false,
  // Put the focus on the move list's current move after the next render (the list was being
  // used from the keyboard: its buttons are made again).
  focusPly: false,
};

const board = new Board($("board"), (m) => play(m));

// The position the URL names.
function readUrl() {
  const q = new URLSearchParams(location.search);
  const t = { start: START, moves: [], ply: 0, rules: "asian", names: [] };
  if (q.get("fen")) t.start = q.get("fen");
  if (q.get("moves")) t.moves = q.get("moves").split(/[ ,]+/).filter(Boolean);
  t.ply = q.has("ply") ? Math.max(0, Math.min(t.moves.length, Number(q.get("ply")) || 0)) : t.moves.length;
  if (["chinese", "wxf", "iccs"].includes(q.get("n"))) state.notation = q.get("n");
  if (q.get("rules") === "plain") t.rules = "plain";
  board.flipped = q.get("flip") === "1";
  return t;
}

// Writes the position shown into the URL: a new history entry ("push") or this one ("replace").
function writeUrl(how) {
  const q = new URLSearchParams();
  if (state.start !== START) q.set("fen", state.start);
  if (state.moves.length) q.set("moves", state.moves.join(","));
  if (state.ply !== state.moves.length) q.set("ply", String(state.ply));
  if (state.notation !== "chinese") q.set("n", state.notation);
  if (state.rules !== "asian") q.set("rules", state.rules);
  if (board.flipped) q.set("flip", "1");
  const s = q.toString();
  const url = s ? `?${s}` : location.pathname;
  if (how === "push" && (s ? `?${s}` : "") !== location.search) history.pushState(null, "", url);
  else history.replaceState(null, "", url);
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

// A table value for the side to move in the words of the CLI (`qiku-tb probe`): "win, mate in 5
// plies", "loss, mated in 18 plies", "loss, no legal move", "draw", or a value only the
// perpetual-check rule decides.
function verdictWords(v) {
  const n = Math.abs(v.dtm);
  if (v.wdl === "draw") return "draw";
  if (v.by_rule) {
    return v.wdl === "win"
      ? "win by the perpetual-check rule: the opponent can only check forever"
      : "loss by the perpetual-check rule: the side to move can only check forever";
  }
  if (v.wdl === "win") return `win, mate in ${n} ${n === 1 ? "ply" : "plies"}`;
  return n === 0 ? "loss, no legal move" : `loss, mated in ${n} ${n === 1 ? "ply" : "plies"}`;
}

// The end of a game the rules ended with moves left (a perpetual, a repetition, the 120-ply
// limit), in the words of `qiku analyze`: "draw by threefold repetition (1/2-1/2)".
function gameOverText(d) {
  return `${d.game_over.text} (${d.game_over.result})`;
}

// The position's state: "Red to move", or the end of the game in the CLI's words.
function statusText(d) {
  const side = d.turn === "red" ? "Red" : "Black";
  if (d.status === "checkmate" || d.status === "stalemate") return `${side} to move: loss, no legal move (${d.status})`;
  if (d.status !== "ok") return `${side} to move: game over, ${gameOverText(d)}`;
  return `${side} to move`;
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

function showError(message) {
  $("status").textContent = `Error: ${message}`;
  $("status").className = "status error";
}

// The position we are at or heading to: the one in flight, else the one shown.
function current() {
  return state.pending || { start: state.start, moves: state.moves, ply: state.ply, rules: state.rules, names: state.names };
}

// Shows the position `t` ({ start, moves, ply, rules, names }): asks the API, and only once it
// answers makes it the position shown, writes the URL (`how`: "push" or "replace") and draws it.
// A position the API refuses (a bad FEN, an illegal move) is not taken: the last good one stays
// on the board and in the URL, and the error is shown.
async function show(t, how) {
  const seq = ++state.seq;
  state.pending = t;
  clearEngine();
  const ask = async (moves) => {
    const q = new URLSearchParams({ fen: t.start, moves: moves.join(" "), rules: t.rules });
    const r = await fetch(`/api/explore?${q}`);
    const answer = await r.json();
    if (!r.ok) throw new Error(answer.error || r.statusText);
    return answer;
  };
  let data;
  try {
    // Moves past the ply whose names are not known yet (a link, a game opened, Back into a
    // line; they may be written in WXF or Chinese): the whole line is read first, for every
    // move's name and ICCS. A line bad past the ply keeps its moves as written, refused when
    // reached.
    if (t.moves.slice(t.ply).some((m, i) => !(t.names[t.ply + i] && t.names[t.ply + i].iccs === m))) {
      const line = await ask(t.moves).catch(() => null);
      if (seq !== state.seq) return;
      if (line) {
        t = { ...t, moves: line.played.map((m) => m.iccs), names: line.played.slice() };
        state.pending = t;
      }
    }
    data = await ask(t.moves.slice(0, t.ply));
  } catch (e) {
    if (seq !== state.seq) return;
    state.pending = null;
    if (state.analyzeShown) {
      state.analyzeShown = false;
      $("engine-out").textContent = "";
    }
    $("rules").value = state.rules;
    // Nothing shown yet (a link naming a bad position), or another start (Back into a FEN the
    // server refuses): the FEN box holds it, to be mended.
    if (!state.data || t.start !== state.start) $("fen").value = t.start;
    // The last good position stays in the URL too (Back may have put the refused one there).
    if (state.data) writeUrl("replace");
    $("board-col").classList.toggle("unset", !state.data);
    showError(errorText(e));
    return;
  }
  if (seq !== state.seq) return;
  state.pending = null;
  state.start = t.start;
  state.moves = t.moves;
  state.ply = t.ply;
  state.rules = t.rules;
  state.names = t.names;
  state.data = data;
  // The moves as ICCS from here on (a link may have written them otherwise), with their names.
  data.played.forEach((m, i) => {
    state.names[i] = m;
    state.moves[i] = m.iccs;
  });
  $("board-col").classList.remove("unset");
  writeUrl(how);
  render();
  if (state.analyzeShown) {
    state.analyzeShown = false;
    analyze();
  }
}

// Makes an element a button for the keyboard too: focusable, activated by Enter or Space.
function activatable(el, action) {
  el.tabIndex = 0;
  el.setAttribute("role", "button");
  el.addEventListener("click", () => action(false));
  el.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" && e.key !== " ") return;
    e.preventDefault();
    action(true);
  });
}

function render() {
  const d = state.data;
  board.set(d.fen, d.legal, state.ply > 0 ? state.moves[state.ply - 1] : null);
  $("fen").value = d.fen;
  $("rules").value = state.rules;
  const side = d.turn === "red" ? "Red" : "Black";
  $("status").textContent = statusText(d);
  $("status").className = "status";

  const pos = $("position");
  pos.replaceChildren();
  if (d.tablebase) {
    const p = document.createElement("p");
    p.className = `tb ${d.tablebase.wdl}`;
    p.dataset.wdl = d.tablebase.wdl;
    p.textContent = `Table (${d.rules} rules), ${side.toLowerCase()} to move: ${verdictWords(d.tablebase)}`;
    pos.appendChild(p);
  }
  if (d.book && d.book.games > 0) {
    const p = document.createElement("div");
    p.className = "total";
    const label = document.createElement("span");
    label.textContent = `${d.book.games} ${d.book.games === 1 ? "game" : "games"}`;
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
    if (m.with_mirror) {
      // The start position's twins (h2e2, b2e2) share one line of games.
      c1.textContent += ` (${name(m.with_mirror)})`;
      c1.title = "counted with its mirror image";
    }
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
    activatable(tr, (keyboard) => play(m.iccs, keyboard));
    tbody.appendChild(tr);
  }
  // No moves to list: no empty table, a word instead.
  $("explorer").hidden = d.moves.length === 0;
  $("empty").hidden = d.moves.length > 0;
  $("empty").textContent = d.status === "ok"
    ? "No book games and no table for this position."
    : d.legal.length === 0
      ? "No legal move: the game is over."
      : `No book games and no table for this position; the game is over: ${gameOverText(d)}.`;
  // Without book games (a table position) the games and bar columns stay empty: hide them.
  $("explorer").classList.toggle("no-book", !d.moves.some((m) => m.games > 0));

  const played = $("played");
  played.replaceChildren();
  const fields = state.start.trim().split(/\s+/);
  const startRed = fields[1] !== "b";
  // The FEN's move number (the start position's is 1): a position from move 40 counts on from 40.
  const no = Math.max(1, Math.floor(Number(fields[5])) || 1) - 1;
  const item = (i, text, cls) => {
    // Move numbers before red's moves, and "40..." before a first move by black.
    let label = null;
    if (startRed && i % 2 === 0) label = `${no + i / 2 + 1}.`;
    else if (!startRed && i === 0) label = `${no + 1}...`;
    else if (!startRed && i % 2 === 1) label = `${no + (i + 1) / 2 + 1}.`;
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
    // A game that reached the mirror image of this position (left and right swapped, one
    // position to the books) is shown mirrored, so that it reaches this one: said so.
    if (g.mirrored) {
      const m = document.createElement("span");
      m.className = "mirrored";
      m.textContent = " (mirrored)";
      m.title = "This game reached the mirror image of this position (left and right swapped); it is shown mirrored, so that it reaches this one.";
      li.appendChild(m);
    }
    activatable(li, (keyboard) => openGame(g.n, keyboard));
    recent.appendChild(li);
  }
  renderEngine();
  if (state.focusRows) {
    state.focusRows = false;
    const first = tbody.querySelector("tr");
    if (first) first.focus();
  }
  if (state.focusPly) {
    state.focusPly = false;
    // The current move's button, or the first one at the start.
    const b = played.querySelector(`button[data-ply="${Math.max(1, state.ply)}"]`);
    if (b) b.focus();
  }
}

// Where the keyboard focus is, so that the render after a step puts it back there: on the
// move list's current move, or on the first move row.
function keepFocus() {
  const a = document.activeElement;
  if (a && a.classList.contains("ply")) state.focusPly = true;
  else if (a && a.closest && a.closest("#explorer tbody")) state.focusRows = true;
}

// A listed game is fetched whole when chosen and replayed from its own start to this position.
async function openGame(n, keyboard) {
  if (state.pending || !state.data) return;
  const q = new URLSearchParams({ fen: state.start, moves: state.moves.slice(0, state.ply).join(" "), n: String(n) });
  try {
    const r = await fetch(`/api/game?${q}`);
    const g = await r.json();
    if (!r.ok) throw new Error(g.error || r.statusText);
    state.focusRows = keyboard;
    show({ start: g.start, moves: g.moves.slice(), ply: Math.min(g.ply, g.moves.length), rules: state.rules, names: [] }, "push");
  } catch (e) {
    showError(errorText(e));
  }
}

// Plays a legal move of the position shown (a click while another position is loading, a second
// click of a double click say, is ignored).
function play(m, keyboard = false) {
  if (state.pending || !state.data || !state.data.legal.includes(m)) return;
  const t = current();
  state.focusRows = keyboard;
  // Playing the move that comes next keeps the rest of the line (a step forward); another
  // starts a new line (a new history entry).
  if (t.moves[t.ply] === m) {
    show({ ...t, ply: t.ply + 1 }, "replace");
  } else {
    show({ ...t, moves: t.moves.slice(0, t.ply).concat([m]), ply: t.ply + 1 }, "push");
  }
}

// Plays a move typed in any notation (ICCS, WXF or Chinese), for players without a pointer and
// those who type faster: an ICCS move is checked here, another is read by the server in the
// position shown (as a link's moves are) for its ICCS. A move not legal here, or more than one,
// is an error and the position stays.
async function playTyped(text) {
  const d = state.data;
  if (!d || state.pending || !text) return;
  if (/[\s,]/.test(text)) {
    showError(`"${text}": type one move at a time`);
    return;
  }
  const iccs = text.toLowerCase().replace("-", "");
  let m = d.legal.includes(iccs) ? iccs : null;
  if (!m) {
    const t = current();
    const moves = t.moves.slice(0, t.ply).concat([text]).join(" ");
    const q = new URLSearchParams({ fen: t.start, moves, rules: t.rules });
    try {
      const r = await fetch(`/api/explore?${q}`);
      const a = await r.json();
      // The API's words name the move's index and position and how `moves` is read: the move
      // and why are what a player needs.
      const why = (a.error || r.statusText)
        .replace(/^moves\[\d+\] in [^:]*: /, "")
        .replace(/ \(moves are played in order[^)]*\)$/, "");
      if (!r.ok) throw new Error(why);
      m = a.played[a.played.length - 1].iccs;
    } catch (e) {
      if (state.data === d) showError(errorText(e));
      return;
    }
    // Another position was shown meanwhile: the move was of the one left.
    if (state.data !== d) return;
  }
  $("move").value = "";
  play(m);
}

function go(ply) {
  const t = current();
  const p = Math.max(0, Math.min(t.moves.length, ply));
  if (p === t.ply) return;
  keepFocus();
  show({ ...t, ply: p }, "replace");
}

// A position change: the engine's line of the old position is gone, and a late reply to it will
// be dropped.
function clearEngine() {
  state.engineSeq += 1;
  state.analysis = null;
  // Still waiting for a position to search (the engine was asked for while one loaded).
  $("engine-out").textContent = state.analyzeShown ? WAITING : "";
}

// The engine's answer in words: whose side the score is for, mates in plies as the tables count
// them, the tables' verdict when they chose the move, and the rules.
function engineText(a, d) {
  const side = d.turn === "red" ? "red" : "black";
  const line = a.pv.map(name).join(" ");
  const tb = a.tablebase;
  if (a.source === "tablebase" && tb) return `For ${side} (to move), from the tables: ${tb.text}: ${line}`;
  let score;
  if (a.mate != null) {
    // A mate in n moves is 2n - 1 plies for the side that mates, 2n for the side mated.
    const plies = (n) => (n === 1 ? "1 ply" : `${n} plies`);
    score = a.mate > 0 ? `win, mate in ${plies(2 * a.mate - 1)}` : `loss, mated in ${plies(-2 * a.mate)}`;
  } else if (Math.abs(a.cp) >= TABLE_WIN_CP) {
    score = `${a.cp > 0 ? "win" : "loss"}: the search reaches a position the tables decide (distance unknown)`;
  } else {
    score = `${a.cp > 0 ? "+" : ""}${a.cp} centipawns`;
  }
  let text = `For ${side} (to move): ${score} (depth ${a.depth})`;
  if (tb) text += `; tables: ${tb.text}, the engine chose among the drawing moves`;
  if (a.rules === "plain") text += "; the engine's search judges repetitions by the Asian rules";
  return `${text}: ${line}`;
}

function renderEngine() {
  const d = state.data;
  if (!state.analysis || !d || state.analysis.fen !== d.fen) return;
  $("engine-out").textContent = engineText(state.analysis.a, d);
}

// Asks the server whether it runs the engine (state.engine: true or false; null when it could not
// be asked).
async function loadInfo() {
  try {
    const r = await fetch("/api/info");
    const i = await r.json();
    state.engine = Boolean(i.engine);
  } catch (e) {
    state.engine = null;
    return;
  }
  $("analyze").disabled = !state.engine;
  $("analyze").title = state.engine ? "" : "Start the server with --engine";
}

async function analyze() {
  const out = $("engine-out");
  if (state.engine === null) await loadInfo();
  if (state.engine === null) {
    out.textContent = `Engine: ${UNREACHABLE}`;
    return;
  }
  if (!state.engine) {
    out.textContent = "The engine is off (start the server with --engine).";
    return;
  }
  const d = state.data;
  if (!d) {
    out.textContent = "No position to analyse: load one first.";
    return;
  }
  if (state.pending) {
    // Asked while another position loads: searched once it is shown.
    state.analyzeShown = true;
    out.textContent = WAITING;
    return;
  }
  if (d.status !== "ok") {
    out.textContent = d.legal.length === 0
      ? `Game over (${d.status}): ${d.turn} to move, loss, no legal move.`
      : `Game over: ${gameOverText(d)}; no move to search.`;
    return;
  }
  const seq = ++state.engineSeq;
  state.analysis = null;
  out.textContent = "Thinking…";
  // The moves played, not the position alone: the engine judges repetitions by them, as
  // `qiku analyze startpos moves ...` does.
  const q = new URLSearchParams({
    fen: state.start, moves: state.moves.slice(0, state.ply).join(" "), movetime: "1000", rules: state.rules,
  });
  try {
    const r = await fetch(`/api/analyze?${q}`);
    const a = await r.json();
    if (!r.ok) throw new Error(a.error || r.statusText);
    // A reply for a position no longer shown is dropped.
    if (seq !== state.engineSeq || !state.data || a.fen !== state.data.fen) return;
    state.analysis = { fen: a.fen, a };
    renderEngine();
  } catch (e) {
    if (seq !== state.engineSeq) return;
    out.textContent = `Engine: ${errorText(e)}`;
  }
}

function setup() {
  const first = readUrl();
  $("notation").value = state.notation;
  $("notation").addEventListener("change", (e) => {
    state.notation = e.target.value;
    localStorage.setItem("qiku-notation", state.notation);
    if (state.data) {
      writeUrl("replace");
      render();
    }
  });
  $("rules").value = first.rules;
  $("rules").addEventListener("change", (e) => {
    show({ ...current(), rules: e.target.value }, "replace");
  });
  $("first").addEventListener("click", () => go(0));
  $("back").addEventListener("click", () => go(current().ply - 1));
  $("fwd").addEventListener("click", () => go(current().ply + 1));
  $("last").addEventListener("click", () => go(current().moves.length));
  $("flip").addEventListener("click", () => {
    board.flipped = !board.flipped;
    board.draw();
    if (state.data) writeUrl("replace");
  });
  $("analyze").addEventListener("click", analyze);
  $("moveform").addEventListener("submit", (e) => {
    e.preventDefault();
    playTyped($("move").value.trim());
  });
  $("fenform").addEventListener("submit", (e) => {
    e.preventDefault();
    // One space between the fields, as the server writes a FEN.
    const fen = $("fen").value.trim().replace(/\s+/g, " ") || START;
    show({ start: fen, moves: [], ply: 0, rules: current().rules, names: [] }, "push");
  });
  // Back and Forward of the browser: the position that entry names.
  window.addEventListener("popstate", () => {
    const t = readUrl();
    $("notation").value = state.notation;
    show(t, "replace");
  });
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === "ArrowLeft") go(current().ply - 1);
    else if (e.key === "ArrowRight") go(current().ply + 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(current().moves.length);
    else return;
    e.preventDefault();
  });
  loadInfo();
  show(first, "replace");
}

setup();
