// cardrl web app: plain JavaScript, no build step. The server holds the games; this page
// shows its SVG tables and sends the clicked moves (web/app.py documents the HTTP API).
"use strict";

const $ = (id) => document.getElementById(id);
let catalog = null;
let play = null;     // the play session's last state
let replay = null;   // {id, summary, index, info, step}

// -- helpers ---------------------------------------------------------------------------
function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") node.textContent = v;
    else if (k === "class") node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

// Bodies are always JSON (a record file: JSON lines): the server refuses other types, so
// that another site's page cannot send it a form (docs/security.md).
async function api(method, path, body, contentType = "application/json") {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = contentType;
    options.body = contentType === "application/json" ? JSON.stringify(body) : body;
  }
  const response = await fetch(path, options);
  let data = null;
  try { data = await response.json(); } catch (e) { data = { error: response.statusText }; }
  if (!response.ok) {
    const err = new Error(data && data.error ? data.error : `HTTP ${response.status}`);
    err.status = response.status;
    throw err;
  }
  return data;
}

function say(id, text, kind = "info") {
  const node = $(id);
  node.textContent = text || "";
  node.className = "message " + kind;
}

// What a table of a game looks like comes from the server (GET /api/catalog: the seats
// of each choice of the table option, each option's default and label).
function seatsOf(game, table) {
  const info = catalog.games[game];
  const key = info.table_option;
  const value = key ? (table[key] !== undefined ? table[key] : info.defaults[key]) : "";
  return Number(info.seats[String(value)]);
}

// -- the table-choosing forms (play and watch) -------------------------------------------
function buildForm(prefix, withSeat) {
  const gameSelect = $(prefix + "-game");
  gameSelect.replaceChildren(...Object.entries(catalog.games).map(
    ([name, g]) => el("option", { value: name, text: g.title })));
  const refresh = () => {
    const game = gameSelect.value;
    const info = catalog.games[game];
    const tableSpan = $(prefix + "-table");
    const old = readTable(prefix);
    tableSpan.replaceChildren(...Object.entries(info.tables).map(([key, choices]) => {
      const select = el("select", { id: `${prefix}-opt-${key}`, "data-key": key },
        choices.map((c) => el("option", { value: String(c), text: String(c) })));
      select.value = String(old[key] !== undefined ? old[key] : info.defaults[key]);
      select.addEventListener("change", refreshSeats);
      return el("label", { text: info.labels[key] + " " }, [select]);
    }));
    $(prefix + "-episode").replaceChildren(...info.episodes.map(
      (e) => el("option", { value: e, text: e === "match" ? "a whole match" : `one ${e}` })));
    refreshSeats();
  };
  const refreshSeats = () => {
    const game = gameSelect.value;
    const n = seatsOf(game, readTable(prefix));
    let mine = -1;
    if (withSeat) {
      const seatSelect = $(prefix + "-seat");
      const keep = Number(seatSelect.value || 0);
      seatSelect.replaceChildren(...[...Array(n).keys()].map(
        (s) => el("option", { value: String(s), text: `player_${s}` })));
      seatSelect.value = String(Math.min(keep, n - 1));
      mine = Number(seatSelect.value);
    }
    const specs = catalog.games[game].agents.map((a) => a.spec)
      .concat(catalog.checkpoints);
    const box = $(prefix + "-agents");
    box.replaceChildren(...[...Array(n).keys()].filter((s) => s !== mine).map((s) => {
      const select = el("select", { id: `${prefix}-agent-${s}`, "data-seat": String(s) },
        specs.map((spec) => el("option", { value: spec, text: spec })));
      select.value = specs.includes("heuristic") ? "heuristic" : "random";
      return el("label", { text: `player_${s} ` }, [select]);
    }));
  };
  gameSelect.addEventListener("change", refresh);
  if (withSeat) $(prefix + "-seat").addEventListener("change", refreshSeats);
  refresh();
}

function readTable(prefix) {
  const table = {};
  const game = $(prefix + "-game").value;
  const offered = catalog.games[game] ? catalog.games[game].tables : {};
  document.querySelectorAll(`#${prefix}-table select`).forEach((s) => {
    const choices = offered[s.dataset.key] || [];
    table[s.dataset.key] = typeof choices[0] === "number" ? Number(s.value) : s.value;
  });
  const episode = $(prefix + "-episode");
  if (episode && episode.value) table.episode = episode.value;
  return table;
}

function readAgents(prefix, n, mine) {
  return [...Array(n).keys()].map((s) => (s === mine ? null : $(`${prefix}-agent-${s}`).value));
}

// -- play --------------------------------------------------------------------------------
async function startPlay(event) {
  event.preventDefault();
  const game = $("play-game").value;
  const table = readTable("play");
  const seat = Number($("play-seat").value);
  const seedText = $("play-seed").value;
  const body = { game, table, seat, agents: readAgents("play", seatsOf(game, table), seat) };
  if (seedText !== "") body.seed = Number(seedText);
  try {
    showPlay(await api("POST", "/api/play", body));
    $("play-setup").hidden = true;
    $("play-view").hidden = false;
  } catch (err) {
    say("setup-message", err.message, "error");
  }
}

function defaultCardAction(game, card) {
  return catalog.games[game].card_action + ":" + card;
}

async function sendMove(action) {
  try {
    showPlay(await api("POST", `/api/play/${play.id}/act`, { action, version: play.version }));
  } catch (err) {
    say("play-message", err.message, "error");
  }
}

function showPlay(state) {
  play = state;
  const board = $("play-board");
  board.innerHTML = state.svg;  // built by the server from escaped text (envs/svg.py)
  board.classList.toggle("mine", state.your_turn);
  board.dataset.version = String(state.version);
  for (const card of board.querySelectorAll("g.card[data-card]")) {
    const name = card.dataset.card;
    const hand = Number(card.dataset.hand);
    const clickable = name in state.card_actions || hand === state.seat;
    if (!clickable) continue;
    card.classList.add("clickable");
    card.addEventListener("click", () => {
      sendMove(state.card_actions[name] || defaultCardAction(state.game, name));
    });
  }
  $("play-buttons").replaceChildren(...state.buttons.map((b) => {
    const button = el("button", { type: "button", "data-action": b.action, text: b.label });
    button.addEventListener("click", () => sendMove(b.action));
    return button;
  }));
  if (state.your_turn) {
    const cards = Object.keys(state.card_actions).length;
    say("play-message", cards ? "Your turn: click a highlighted card" +
      (state.buttons.length ? " or a button." : ".") : "Your turn.", "info");
  } else if (state.waiting) {
    say("play-message", "The deal is over. The match goes on with the next deal.", "info");
  } else if (state.over) {
    say("play-message", "The game is over.", "info");
  }
  const result = $("play-result");
  result.replaceChildren();
  if (state.last) result.append(resultView(state.game, state.last));
  result.dataset.result = state.last && state.over ? JSON.stringify(state.last.result) : "";
  const next = $("play-next");
  next.hidden = !(state.waiting || state.over);
  next.textContent = state.waiting ? "Next deal" : catalog.games[state.game].again;
  const record = $("play-record");
  record.hidden = state.games_recorded === 0;
  record.href = `/api/play/${state.id}/record`;
  $("play-log").textContent = state.log.join("\n");
  $("play-log").scrollTop = 1e9;
}

function cell(text, tag = "td") { return el(tag, { text: String(text) }); }

// The server writes a result's table (web/results.py: heading, columns, cells, notes).
function resultView(game, last) {
  const box = el("div", { class: "result-box" });
  const res = last.result;
  const shown = last.breakdown;
  box.append(el("h3", { text: shown.heading }));
  const table = el("table", {}, [el("tr", {}, shown.columns.map((h) => cell(h, "th")))]);
  for (const row of shown.cells) table.append(el("tr", {}, row.map((c) => cell(c))));
  box.append(table);
  for (const note of shown.notes) box.append(el("p", { text: note }));
  if (res.match_over && res.winners) {
    box.append(el("p", { class: "winner",
      text: "Winner: " + res.winners.map((s) => "player_" + s).join(", ") }));
  }
  return box;
}

async function nextDeal() {
  try {
    showPlay(await api("POST", `/api/play/${play.id}/next`));
  } catch (err) {
    say("play-message", err.message, "error");
  }
}

function newTable() {
  if (play) api("DELETE", `/api/play/${play.id}`).catch(() => {});
  play = null;
  $("play-view").hidden = true;
  $("play-setup").hidden = false;
}

// -- replay ------------------------------------------------------------------------------
async function uploadFile() {
  const file = $("replay-file").files[0];
  if (!file) return;
  try {
    const text = await file.text();
    const summary = await api("POST", `/api/replay?name=${encodeURIComponent(file.name)}`,
      text, "application/x-ndjson");
    await openReplay(summary);
  } catch (err) {
    say("replay-setup-message", err.message, "error");
  }
}

async function startWatch(event) {
  event.preventDefault();
  const game = $("watch-game").value;
  const table = readTable("watch");
  const body = { game, table, agents: readAgents("watch", seatsOf(game, table), -1) };
  try {
    say("replay-setup-message", "The agents are playing…", "info");
    await openReplay(await api("POST", "/api/watch", body));
  } catch (err) {
    say("replay-setup-message", err.message, "error");
  }
}

async function openReplay(summary) {
  replay = { id: summary.id, summary, index: 0, info: null, step: 0 };
  $("replay-game").replaceChildren(...summary.games.map((g) => el("option", {
    value: String(g.index),
    text: `game ${g.index} (line ${g.line || "-"}): ${g.title}, ${g.actions} moves` })));
  say("replay-setup-message", summary.errors.length ?
    `${summary.errors.length} bad line(s): ${summary.errors[0]}` : "", "error");
  $("replay-setup").hidden = true;
  $("replay-view").hidden = false;
  await openGame(0);
}

async function openGame(index) {
  try {
    const info = await api("GET", `/api/replay/${replay.id}/${index}`);
    replay.index = index;
    replay.info = info;
    $("replay-slider").max = String(info.steps);
    $("replay-jump").replaceChildren(el("option", { value: "", text: "jump to…" }),
      ...info.marks.map((m) => el("option", { value: String(m.step), text: m.label })));
    $("replay-seat").replaceChildren(...[...Array(info.seats).keys()].map(
      (s) => el("option", { value: String(s), text: `seen from player_${s}` })));
    say("replay-message", `${info.steps} moves; checked against the engine: ${info.check}`);
    await showStep(0);
  } catch (err) {
    say("replay-message", err.message, "error");
  }
}

async function showStep(step) {
  if (!replay || !replay.info) return;
  step = Math.max(0, Math.min(replay.info.steps, step));
  const faceUp = $("replay-faceup").checked ? 1 : 0;
  const seat = $("replay-seat").value || 0;
  try {
    const pos = await api("GET",
      `/api/replay/${replay.id}/${replay.index}/${step}?face_up=${faceUp}&seat=${seat}`);
    replay.step = step;
    $("replay-board").innerHTML = pos.svg;  // built by the server from escaped text
    $("replay-board").dataset.step = String(step);
    $("replay-slider").value = String(step);
    $("replay-step").textContent = `move ${step} / ${pos.steps}`;
    $("replay-told").replaceChildren(...pos.told.map((t) => el("div", { text: t })),
      ...(pos.next ? [el("div", { class: "next", text: `next: ${pos.next}` })] : []));
    const probs = $("replay-probs");
    probs.replaceChildren();
    if (pos.probabilities) probs.append(probabilityView(pos.probabilities));
    const result = $("replay-result");
    result.replaceChildren();
    if (pos.deal_end) result.append(resultView(replay.info.game, pos.deal_end));
    result.dataset.result = pos.final && pos.result ? JSON.stringify(pos.result) : "";
    $("replay-analysis").replaceChildren();
  } catch (err) {
    say("replay-message", err.message, "error");
  }
}

function probabilityView(p) {
  const entries = Object.entries(p.probabilities).sort((a, b) => b[1] - a[1]);
  const title = `${p.agent}: the network's probabilities` +
    (p.delegate ? ` (this decision is made by its delegate ${p.delegate})` : "");
  const table = el("table", {}, [el("tr", {}, [cell(title, "th")])]);
  for (const [name, prob] of entries.slice(0, 12)) {
    const bar = el("span", { class: "bar" });
    bar.style.width = `${Math.round(prob * 200)}px`;
    table.append(el("tr", { class: name === p.chosen ? "chosen" : "" },
      [el("td", {}, [el("span", { text: `${name} ${(prob * 100).toFixed(1)}% ` }), bar])]));
  }
  return table;
}

async function analyse() {
  try {
    const data = await api("GET", `/api/replay/${replay.id}/${replay.index}/${replay.step}/analyse`);
    const table = el("table", {}, [el("tr", {}, ["agent", "would play", "network's top moves",
      "note"].map((h) => cell(h, "th")))]);
    for (const row of data.agents) {
      const top = row.probabilities ? Object.entries(row.probabilities)
        .sort((a, b) => b[1] - a[1]).slice(0, 3)
        .map(([n, p]) => `${n} ${(p * 100).toFixed(0)}%`).join(", ") : "";
      table.append(el("tr", {}, [cell(row.agent), cell(row.action || "-"), cell(top),
        cell(row.note || "")]));
    }
    $("replay-analysis").replaceChildren(
      el("h3", { text: `What each agent would do as player_${data.seat}` }), table);
  } catch (err) {
    say("replay-message", err.message, "error");
  }
}

function closeReplay() {
  if (replay) api("DELETE", `/api/replay/${replay.id}`).catch(() => {});
  replay = null;
  $("replay-file").value = "";
  $("replay-view").hidden = true;
  $("replay-setup").hidden = false;
}

// -- wiring ------------------------------------------------------------------------------
function showTab(name) {
  $("tab-play").classList.toggle("active", name === "play");
  $("tab-replay").classList.toggle("active", name === "replay");
  $("play-setup").hidden = name !== "play" || play !== null;
  $("play-view").hidden = name !== "play" || play === null;
  $("replay-setup").hidden = name !== "replay" || replay !== null;
  $("replay-view").hidden = name !== "replay" || replay === null;
}

async function main() {
  catalog = await api("GET", "/api/catalog");
  buildForm("play", true);
  buildForm("watch", false);
  $("play-form").addEventListener("submit", startPlay);
  $("watch-form").addEventListener("submit", startWatch);
  $("play-next").addEventListener("click", nextDeal);
  $("play-new").addEventListener("click", newTable);
  $("tab-play").addEventListener("click", () => showTab("play"));
  $("tab-replay").addEventListener("click", () => showTab("replay"));
  $("replay-file").addEventListener("change", uploadFile);
  $("replay-game").addEventListener("change", (e) => openGame(Number(e.target.value)));
  $("replay-first").addEventListener("click", () => showStep(0));
  $("replay-prev").addEventListener("click", () => showStep(replay.step - 1));
  $("replay-next").addEventListener("click", () => showStep(replay.step + 1));
  $("replay-last").addEventListener("click", () => showStep(replay.info.steps));
  $("replay-slider").addEventListener("change", (e) => showStep(Number(e.target.value)));
  $("replay-jump").addEventListener("change", (e) => {
    if (e.target.value !== "") showStep(Number(e.target.value));
    e.target.value = "";
  });
  $("replay-faceup").addEventListener("change", () => showStep(replay.step));
  $("replay-seat").addEventListener("change", () => showStep(replay.step));
  $("replay-analyse").addEventListener("click", analyse);
  $("replay-close").addEventListener("click", closeReplay);
  document.addEventListener("keydown", (e) => {
    if ($("replay-view").hidden || e.target.tagName === "INPUT" && e.target.type !== "range") {
      return;
    }
    if (e.key === "ArrowRight") showStep(replay.step + 1);
    if (e.key === "ArrowLeft") showStep(replay.step - 1);
  });
  document.body.dataset.ready = "1";
}

main().catch((err) => { document.body.prepend(el("p", { class: "message error",
  text: "The page could not start: " + err.message })); });
