// The browser board of `bgengine web`: draws the table the server describes (GET /api/game)
// as SVG and sends the person's actions (a checker moves by a click on it and a click where
// it goes, or by dragging it there).  The server is the judge of every move: the page
// only offers the moves the server lists (view.move.targets) and redraws from its answer.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const W = 60, R = 27, TOP = 20, BOTTOM = 600, MID = 310;
const $ = (id) => document.getElementById(id);

let view = null;          // the server's last description of the table
let selected = null;      // the point of the checker picked up, or null
let pressed = null;       // the point where a drag began, or null

// ------------------------------------------------------------------ geometry
// x of the centre of the person's point p (1..24): 1-6 bottom right, 7-12 bottom left,
// 13-18 top left, 19-24 top right; the bar between the halves, the tray on the right.
function pointX(p) {
  if (p <= 6) return 800 - (p - 0.5) * W;
  if (p <= 12) return 380 - (p - 6.5) * W;
  if (p <= 18) return 20 + (p - 12.5) * W;
  return 440 + (p - 18.5) * W;
}
const isTop = (p) => p >= 13;

function el(name, attrs, parent, text) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

// a stack of n checkers of `who` at x, from y0 growing by dy; at most 5 drawn, then a count
function stack(g, x, y0, dy, n, who) {
  for (let k = 0; k < Math.min(n, 5); k++) {
    el("circle", {cx: x, cy: y0 + k * dy, r: R, class: "checker-" + who}, g);
  }
  if (n > 5) el("text", {x: x, y: y0 + 4 * dy, class: "count count-" + who}, g, String(n));
}

// ------------------------------------------------------------------ drawing
function draw() {
  const svg = $("board");
  svg.replaceChildren();
  el("rect", {x: 0, y: 0, width: 820, height: 620, class: "frame"}, svg);
  el("rect", {x: 20, y: TOP, width: 360, height: 580, class: "felt"}, svg);
  el("rect", {x: 440, y: TOP, width: 360, height: 580, class: "felt"}, svg);
  el("rect", {x: 828, y: 0, width: 112, height: 620, class: "tray"}, svg);
  for (let p = 1; p <= 24; p++) {
    const x = pointX(p), dark = p % 2 === 1;
    const tip = isTop(p) ? TOP + 240 : BOTTOM - 240, base = isTop(p) ? TOP : BOTTOM;
    el("polygon", {points: `${x - W / 2},${base} ${x + W / 2},${base} ${x},${tip}`,
                   class: dark ? "point-dark" : "point-light"}, svg);
    el("text", {x: x, y: isTop(p) ? 14 : 614, class: "label"}, svg, String(p));
  }
  if (!view) return;
  const checkers = el("g", {id: "checkers"}, svg);
  view.points.forEach((n, i) => {
    if (!n) return;
    const p = i + 1, who = n > 0 ? "you" : "engine";
    const y0 = isTop(p) ? TOP + R + 1 : BOTTOM - R - 1;
    stack(checkers, pointX(p), y0, isTop(p) ? 2 * R : -2 * R, Math.abs(n), who);
  });
  // the bar: your checkers wait in the top half (you enter into the top right quarter)
  stack(checkers, 410, MID - 50 - R, -2 * R, view.bar.you, "you");
  stack(checkers, 410, MID + 50 + R, 2 * R, view.bar.engine, "engine");
  drawTray(svg);
  drawCube(svg);
  drawDice(svg);
  drawHits(svg);
}

function drawTray(svg) {
  const x = 842, w = 84;
  for (let k = 0; k < view.off.engine; k++) {
    el("rect", {x: x, y: 50 + k * 13, width: w, height: 11, rx: 3, class: "off-engine"}, svg);
  }
  for (let k = 0; k < view.off.you; k++) {
    el("rect", {x: x, y: 559 - k * 13, width: w, height: 11, rx: 3, class: "off-you"}, svg);
  }
  el("text", {x: 884, y: 30, class: "score", id: "pips-engine"}, svg, `pips ${view.pips.engine}`);
  el("text", {x: 884, y: 602, class: "score", id: "pips-you"}, svg, `pips ${view.pips.you}`);
  const m = view.match;
  const head = m.length ? `match to ${m.length}` : m.jacoby ? "money, Jacoby" : "money";
  el("text", {x: 884, y: 272, class: "score"}, svg, head + (m.crawford ? " (C)" : ""));
  el("text", {x: 884, y: 300, class: "score", id: "score-engine"}, svg, `engine ${m.score.engine}`);
  el("text", {x: 884, y: 324, class: "score", id: "score-you"}, svg, `you ${m.score.you}`);
  el("text", {x: 884, y: 350, class: "score"}, svg, `game ${m.game}`);
}

function drawCube(svg) {
  const owner = view.cube.owner;
  const y = owner === "you" ? BOTTOM - 40 : owner === "engine" ? TOP + 40 : MID;
  const g = el("g", {id: "cube", "data-owner": owner}, svg);
  el("rect", {x: 388, y: y - 22, width: 44, height: 44, rx: 6, class: "cube"}, g);
  el("text", {x: 410, y: y, class: "cube-text"}, g, String(view.cube.value === 1 ? 64 : view.cube.value));
}

const PIPS = {1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]],
              4: [[-1, -1], [1, -1], [-1, 1], [1, 1]], 5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
              6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]]};

function drawDice(svg) {
  if (!view.dice) return;
  const [a, b] = view.dice;
  const dice = a === b ? [a, a, a, a] : [a, b];
  const left = view.phase === "move" ? [...view.dice_left] : [...dice];
  const g = el("g", {id: "dice"}, svg);
  dice.forEach((d, k) => {
    const at = left.indexOf(d), used = at < 0;
    if (!used) left.splice(at, 1);
    const x = 620 - dice.length * 28 + k * 56, y = MID;
    el("rect", {x: x - 22, y: y - 22, width: 44, height: 44, rx: 7,
                class: "die" + (used ? " die-used" : ""), "data-value": d}, g);
    for (const [dx, dy] of PIPS[d]) el("circle", {cx: x + dx * 11, cy: y + dy * 11, r: 4, class: "pip"}, g);
  });
}

// clickable areas: every point, the bar (25) and the tray (0: off), in the person's numbering
function drawHits(svg) {
  const move = view.phase === "move" ? view.move : null;
  const sources = move ? Object.keys(move.targets).map(Number) : [];
  const targets = move && selected !== null ? (move.targets[selected] || []) : [];
  const area = (p, x, y, w, h) => {
    let cls = "hit";
    if (p === selected) cls += " selected";
    else if (targets.includes(p)) cls += " target";
    else if (selected === null && sources.includes(p)) cls += " source";
    const r = el("rect", {x, y, width: w, height: h, class: cls, id: "point-" + p, "data-point": p}, svg);
    r.addEventListener("click", () => clickPoint(p));
    // dragging: press on a checker, release over where it goes (a click is a press and a
    // release on the same point, handled by clickPoint)
    r.addEventListener("pointerdown", (e) => {
      pressed = sources.includes(p) ? p : null;
      if (e.target.hasPointerCapture(e.pointerId)) e.target.releasePointerCapture(e.pointerId);
    });
    r.addEventListener("pointerup", () => {
      const from = pressed;
      pressed = null;
      if (from !== null && from !== p && (move.targets[from] || []).includes(p)) {
        act("/api/game/move", {from, to: p});
      }
    });
  };
  for (let p = 1; p <= 24; p++) {
    area(p, pointX(p) - W / 2, isTop(p) ? TOP : MID + 20, W, 270);
  }
  area(25, 380, TOP, 60, MID - TOP - 30);
  area(0, 830, MID + 40, 108, BOTTOM - MID - 20);
}

// ------------------------------------------------------------------ panels
function describe() {
  const v = view;
  const dice = v.dice ? `${v.dice[0]}-${v.dice[1]}` : "";
  switch (v.phase) {
    case "roll": return "Your turn: roll" + (v.can_double ? " or double." : ".");
    case "move":
      if (v.move.complete) return v.move.steps.length ? "Play complete: press Done (or Undo)." :
        `No legal play with ${dice}: press Done.`;
      return selected === null ? `Your move (${dice}): click a checker.` :
        `Your move (${dice}): click where the checker goes.`;
    case "take": return `The engine doubles to ${2 * v.cube.value}: take or pass?`;
    case "resign": return `The engine offers to resign (${v.resignation.points} point` +
      `${v.resignation.points === 1 ? "" : "s"}): accept or reject?`;
    case "game_over": return resultText(v) + " Press Next game.";
    case "match_over": return resultText(v) + " The match is over: start a new one.";
  }
  return "";
}

function resultText(v) {
  const r = v.result, pts = `${r.points} point${r.points === 1 ? "" : "s"}`;
  return (r.winner === "you" ? "You win " : "The engine wins ") + `${pts} (${r.how}).`;
}

function render() {
  draw();
  const phase = view ? view.phase : null;
  const enable = {
    "btn-roll": phase === "roll", "btn-double": phase === "roll" && view.can_double,
    "btn-take": phase === "take", "btn-pass": phase === "take",
    "btn-accept": phase === "resign", "btn-reject": phase === "resign",
    "btn-undo": phase === "move" && view.move.can_undo,
    "btn-done": phase === "move" && view.move.complete,
    "btn-next": phase === "game_over",
    "btn-hint": ["roll", "move", "take"].includes(phase),
  };
  for (const [id, on] of Object.entries(enable)) $(id).disabled = !on;
  $("status").textContent = view ? describe() : "Start a game.";
  $("status").dataset.phase = phase || "";
  const log = $("log");
  log.replaceChildren(...(view ? view.log : []).map((line) => {
    const li = document.createElement("li");
    li.textContent = line;
    return li;
  }));
  log.scrollTop = log.scrollHeight;
  window.bgState = view;
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;
const signed = (x) => (x >= 0 ? "+" : "") + x.toFixed(3);

function showHint(doc) {
  const box = $("hint");
  box.replaceChildren();
  const money = doc.measure.startsWith("cubeful equity");
  const value = money ? signed : pct;
  const table = document.createElement("table");
  const row = (cells) => {
    const tr = table.insertRow();
    cells.forEach((c, k) => { const td = tr.insertCell(); td.textContent = c; if (k) td.className = "num"; });
  };
  if (doc.for === "play") {
    doc.plays.forEach((p, k) => row([`${k + 1}. ${p.play}`, value(p.value),
                                     k ? (money ? signed(p.difference) : pct(p.difference)) : ""]));
  } else {
    const c = doc.cube;
    row([doc.for === "take" ? `The engine's view: ${c.proper_action}` : `Proper action: ${c.proper_action}`, "", ""]);
    row(["No double", value(c.no_double), ""]);
    row(["Double, take", value(c.double_take), ""]);
    row(["Double, pass", value(c.double_pass), ""]);
    if (doc.for === "take") row([c.take ? "You should take." : "You should pass.", "", ""]);
  }
  box.appendChild(table);
  const note = document.createElement("p");
  note.className = "quiet";
  note.textContent = `${doc.measure}, ${doc.plies}-ply`;
  box.appendChild(note);
}

// ------------------------------------------------------------------ talking to the server
async function call(method, url, body) {
  document.body.dataset.busy = "1";
  $("error").textContent = "";
  try {
    const res = await fetch(url, {method, headers: {"content-type": "application/json"},
                                  body: body === undefined ? undefined : JSON.stringify(body)});
    const doc = await res.json();
    if (!res.ok) {
      $("error").textContent = typeof doc.detail === "string" ? doc.detail : JSON.stringify(doc.detail);
      return null;
    }
    return doc;
  } catch (err) {
    $("error").textContent = `The server did not answer: ${err}`;
    return null;
  } finally {
    document.body.dataset.busy = "0";
  }
}

async function act(url, body) {
  const doc = await call("POST", url, body);
  if (doc) {
    view = doc;
    selected = null;
    if (!url.endsWith("/move") && !url.endsWith("/undo")) $("hint").replaceChildren();
  }
  render();
}

function clickPoint(p) {
  if (!view || view.phase !== "move") return;
  const targets = view.move.targets;
  if (selected !== null && (targets[selected] || []).includes(p)) {
    act("/api/game/move", {from: selected, to: p});
    return;
  }
  selected = p in targets && p !== selected ? p : null;
  render();
}

async function start(length, jacoby) {
  await act("/api/game/new", {length, jacoby});
}

function init() {
  for (const [id, url] of [["btn-roll", "roll"], ["btn-double", "double"], ["btn-take", "take"],
                           ["btn-pass", "pass"], ["btn-accept", "accept"], ["btn-reject", "reject"],
                           ["btn-undo", "undo"], ["btn-done", "done"],
                           ["btn-next", "next"]]) {
    $(id).addEventListener("click", () => act("/api/game/" + url));
  }
  $("btn-hint").addEventListener("click", async () => {
    const doc = await call("POST", "/api/game/hint");
    if (doc) showHint(doc);
  });
  const kind = $("new-kind");
  kind.addEventListener("change", () => {
    $("length-label").hidden = kind.value !== "match";
    $("jacoby-label").hidden = kind.value === "match";
  });
  $("new-form").addEventListener("submit", (e) => {
    e.preventDefault();
    if (kind.value === "match") start(Number($("new-length").value), false);
    else start(0, $("new-jacoby").checked);
  });
  fetch("/api/game").then(async (res) => {
    if (res.ok) { view = await res.json(); render(); } else { await start(3, false); }
  });
  render();
}

document.addEventListener("DOMContentLoaded", init);
