// The tables page: every table the server holds (/api/tables), and for the one clicked its
// statistics under both rules, its longest mate (a link to the board) and a DTM histogram
// (/api/tables/{material}).

import { errorText } from "./errors.js";

const $ = (id) => document.getElementById(id);
const NS = "http://www.w3.org/2000/svg";

const fmt = (n) => n.toLocaleString("en-US");
const wdl = (c) => `${fmt(c.wins)} / ${fmt(c.draws)} / ${fmt(c.losses)}`;

function svg(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// Bars per distance, red to move above the axis, black to move below.
function chart(hist) {
  const n = Math.max(hist[0].length, hist[1].length, 1);
  const max = Math.max(1, ...hist[0], ...hist[1]);
  const W = 900, H = 240, L = 50, T = 10, mid = H / 2;
  const root = svg("svg", { viewBox: `0 0 ${W} ${H + 30}`, class: "chart", role: "img", "aria-label": "DTM histogram" });
  const bw = (W - L - 10) / n;
  for (let side = 0; side < 2; side++) {
    hist[side].forEach((v, d) => {
      if (!v) return;
      const h = ((mid - T) * v) / max;
      svg("rect", { x: L + d * bw, y: side === 0 ? mid - h : mid, width: Math.max(bw - 1, 1), height: h,
        class: side === 0 ? "red" : "black" }, root).appendChild(
        Object.assign(document.createElementNS(NS, "title"), { textContent: `${side ? "black" : "red"} to move, ${d} plies: ${fmt(v)}` }));
    });
  }
  svg("line", { x1: L, y1: mid, x2: W - 10, y2: mid, stroke: "#555" }, root);
  const label = (x, y, text, anchor = "middle") => { svg("text", { x, y, "text-anchor": anchor }, root).textContent = text; };
  for (let d = 0; d < n; d += Math.max(1, Math.ceil(n / 12))) label(L + d * bw + bw / 2, H + 20, String(d));
  label(L - 6, T + 10, fmt(max), "end");
  label(L - 6, mid - 6, "red", "end");
  label(L - 6, mid + 16, "black", "end");
  label(W - 10, H + 20, "plies", "end");
  return root;
}

// The number of the latest table asked for: a late answer for an earlier one is dropped.
let latest = 0;

// Scrolls the details into view when their start is not in the upper part of the window (a row
// chosen far up a long list).
function reveal(box) {
  const top = box.getBoundingClientRect().top;
  if (top < 0 || top > innerHeight * 0.6) box.scrollIntoView({ block: "start" });
}

// The details of a table, below the list: scrolled into view when a click far up the list would
// leave them out of sight.
async function detail(material) {
  const seq = ++latest;
  const box = $("detail");
  box.textContent = `Computing ${material}…`;
  reveal(box);
  let r, s;
  try {
    r = await fetch(`/api/tables/${encodeURIComponent(material)}`);
    s = await r.json();
  } catch (e) {
    if (seq === latest) {
      box.textContent = `${material}: Error: ${errorText(e)}`;
      box.classList.add("error");
    }
    return;
  }
  if (seq !== latest) return;
  box.classList.toggle("error", !r.ok);
  if (!r.ok) { box.textContent = `Error: ${s.error}`; return; }
  box.replaceChildren();
  const h = document.createElement("h2");
  h.textContent = s.material;
  box.appendChild(h);
  // Longest: plies to mate. Under the Asian rules the mates are the plain ones (the rule
  // changes only draws); the values only the rule decides carry a line rank, which the server
  // gives apart (`longest_mate_plies`, `highest_line_rank`, as `qiku-tb stats --json`).
  const rows = [["red, plain", s.plain[0]], ["black, plain", s.plain[1]]];
  if (s.asian) rows.push(["red, Asian", s.asian[0]], ["black, Asian", s.asian[1]]);
  const t = document.createElement("table");
  t.className = "tables";
  t.innerHTML = "<thead><tr><th>to move, rules</th><th>legal</th><th>wins</th><th>draws</th><th>losses</th><th>longest</th></tr></thead>";
  const tb = document.createElement("tbody");
  for (const [name, c] of rows) {
    const tr = document.createElement("tr");
    // Plain counts: max_dtm is plies to mate.
    let longest = fmt(c.longest_mate_plies ?? c.max_dtm);
    if (c.highest_line_rank != null) longest += ` (line rank up to ${fmt(c.highest_line_rank)})`;
    for (const v of [name, fmt(c.legal), fmt(c.wins), fmt(c.draws), fmt(c.losses), longest]) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.appendChild(td);
    }
    tb.appendChild(tr);
  }
  t.appendChild(tb);
  const wrap = document.createElement("div");
  wrap.className = "scroll";
  wrap.appendChild(t);
  box.appendChild(wrap);
  const p = document.createElement("p");
  if (s.changed) p.textContent = `Decided only by the Asian rules: ${fmt(s.changed[0])} (red to move), ${fmt(s.changed[1])} (black to move). `;
  if (s.longest) {
    const a = document.createElement("a");
    a.href = `/?fen=${encodeURIComponent(s.longest[0])}`;
    a.textContent = `Longest mate: ${s.longest[1]} plies — ${s.longest[0]}`;
    p.appendChild(a);
  }
  box.appendChild(p);
  box.appendChild(chart(s.histogram));
  reveal(box);
}

async function main() {
  let r, list;
  try {
    r = await fetch("/api/tables");
    list = await r.json();
  } catch (e) {
    // A request that never reached the server, or an answer that is no JSON.
    const again = e instanceof TypeError ? "; reload the page once it is." : "";
    $("summary").textContent = `Error: ${errorText(e)}${again}`;
    $("summary").classList.add("error");
    return;
  }
  // A table file that cannot be read: the server names it (a 500), and lists nothing.
  if (!r.ok) {
    $("summary").textContent = `Error: ${list.error}`;
    $("summary").classList.add("error");
    return;
  }
  const { tables } = list;
  $("summary").textContent = tables.length ? `${tables.length} tables. Click one for its statistics and histogram.` : "This server has no tables (start it with --tb DIR).";
  const tbody = $("tables").querySelector("tbody");
  for (const t of tables) {
    const tr = document.createElement("tr");
    tr.dataset.material = t.material;
    const cells = [t.material, wdl(t.red), wdl(t.black), String(Math.max(t.red.max_dtm, t.black.max_dtm)), t.has_rules ? "yes" : "no", `${(t.file_bytes / 1024).toFixed(1)} KiB`];
    cells.forEach((v, i) => {
      const td = document.createElement("td");
      if (i >= 3) td.className = "opt";
      td.textContent = v;
      tr.appendChild(td);
    });
    // A button for the keyboard too: focusable, chosen with Enter or Space.
    tr.tabIndex = 0;
    tr.setAttribute("role", "button");
    tr.addEventListener("click", () => detail(t.material));
    tr.addEventListener("keydown", (e) => {
      if (e.key !== "Enter" && e.key !== " ") return;
      e.preventDefault();
      detail(t.material);
    });
    tbody.appendChild(tr);
  }
  const want = new URLSearchParams(location.search).get("m");
  if (want) detail(want);
}

main();
