// The glass-box page: plain JS + SVG, no build, no CDN. Talks to /v1 with the key kept in localStorage.
"use strict";
const $ = (s) => document.querySelector(s);
const NS = "http://www.w3.org/2000/svg";
const state = { key: "", caseId: "", verdict: null, graph: null, priors: {}, timer: null };

function el(tag, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

async function api(path, opts = {}) {
  const r = await fetch(path, { ...opts, headers: { "X-API-Key": state.key, "Content-Type": "application/json", ...(opts.headers || {}) } });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) { throw new Error(body.detail || body.title || r.statusText); }
  return body;
}

function setStatus(msg) { $("#status").textContent = msg; }

// ---------------------------------------------------------------- verdict, probability, charts
function showVerdict(v) {
  state.verdict = v;
  const btn = $("#verdict");
  btn.className = v.label + (btn.classList.contains("active") ? " active" : "");
  $("#verdict-label").textContent = v.label;
  const p = v.probability.p_target;
  $("#prob").dataset.p = p == null ? "" : String(p);
  $("#prob").textContent = p == null ? "P(responsabilité) indisponible" : `P(responsabilité) = ${(p * 100).toFixed(1)} %`;
  $("#summary").textContent = v.summary;
  $("#prob-note").textContent = v.probability.layer === "pyro"
    ? `Méthode : ${v.probability.method}`
    : `Couche probabiliste (Pyro) non branchée : verdict symbolique par récit, mélangé selon le poids des récits. ${v.probability.method}`;
  drawPosterior(v);
  drawEig(v);
  showQuestion(v);
  buildSliders(v);
}

function drawPosterior(v) {
  const svg = $("#posterior-chart"); svg.innerHTML = "";
  const worlds = v.worlds;
  el("text", { x: 0, y: 10, class: "chart-label" }, svg).textContent = "poids du récit / P(resp. | récit)";
  worlds.forEach((w, i) => {
    const y = 18 + i * 30, cls = w.world === "NARRATIVE_A" ? "bar-a" : w.world === "NARRATIVE_B" ? "bar-b" : "bar-s";
    el("text", { x: 0, y: y + 10, class: "chart-label" }, svg).textContent = w.world.replace("NARRATIVE_", "récit ");
    el("rect", { x: 70, y, width: Math.max(1, 200 * w.weight), height: 11, class: cls, "data-world": w.world }, svg);
    el("text", { x: 275, y: y + 10, class: "chart-label" }, svg).textContent = w.weight.toFixed(2);
    const pw = v.probability.p_by_world[w.world];
    el("rect", { x: 70, y: y + 13, width: Math.max(1, 200 * (pw ?? 0)), height: 6, class: cls, opacity: .45 }, svg);
    el("text", { x: 305, y: y + 20, class: "chart-label" }, svg).textContent = `${w.verdict}`;
  });
}

function drawEig(v) {
  const svg = $("#eig-chart"); svg.innerHTML = "";
  el("text", { x: 0, y: 10, class: "chart-label" }, svg).textContent = "EIG (bits) des questions";
  const qs = v.questions.filter((q) => q.eig != null).slice(0, 5);
  if (!qs.length) { el("text", { x: 0, y: 28, class: "chart-label" }, svg).textContent = "aucune question informative"; return; }
  const max = Math.max(...qs.map((q) => q.eig), 1e-9);
  qs.forEach((q, i) => {
    const y = 18 + i * 21;
    el("text", { x: 0, y: y + 10, class: "chart-label" }, svg).textContent = q.fact.slice(0, 22);
    el("rect", { x: 130, y, width: Math.max(1, 150 * q.eig / max), height: 12, class: "bar-eig" }, svg);
    el("text", { x: 285, y: y + 10, class: "chart-label" }, svg).textContent = q.eig.toFixed(3);
  });
}

// ---------------------------------------------------------------- what-if sliders
function buildSliders(v) {
  const box = $("#sliders");
  const existing = new Set([...box.querySelectorAll("input[type=range]")].map((i) => i.dataset.fact));
  const wanted = v.sliders.map((s) => s.fact);
  if (wanted.length === existing.size && wanted.every((f) => existing.has(f))) return; // keep focus while dragging
  box.innerHTML = "";
  if (!v.sliders.length) { box.textContent = "Aucune ambiguïté à pondérer dans cette affaire."; return; }
  for (const s of v.sliders) {
    const div = document.createElement("div"); div.className = "slider";
    const label = document.createElement("label");
    const val = document.createElement("output");
    const input = document.createElement("input");
    Object.assign(input, { type: "range", min: 0, max: 100, step: 1, value: Math.round(s.value * 100) });
    input.dataset.fact = s.fact; input.id = `slider-${s.fact}`;
    val.textContent = `${input.value} %`;
    label.append(`P(${s.fact} = ${s.readings[0].value}) `, val);
    const readings = document.createElement("div"); readings.className = "readings";
    readings.textContent = s.readings.map((r) => `${r.value} [${r.world}]${r.note ? " — " + r.note : ""}`).join(" | ");
    input.addEventListener("input", () => {
      val.textContent = `${input.value} %`;
      state.priors[s.fact] = Number(input.value) / 100;
      clearTimeout(state.timer);
      state.timer = setTimeout(whatIf, 120);
    });
    div.append(label, input, readings); box.append(div);
  }
}

async function whatIf() {
  try {
    setStatus("recalcul…");
    const v = await api(`/v1/cases/${state.caseId}/what-if`, { method: "POST", body: JSON.stringify({ priors: state.priors }) });
    showVerdict(v);
    setStatus("");
  } catch (e) { setStatus(`erreur : ${e.message}`); }
}

// ---------------------------------------------------------------- question / answer
function showQuestion(v) {
  const q = v.best_question || v.questions[0];
  const input = $("#answer-input"); input.innerHTML = "";
  $("#answer-btn").disabled = !q;
  if (!q) { $("#question-text").textContent = "Aucune question en attente."; return; }
  $("#question-text").textContent = q.question || q.fact;
  $("#question-text").dataset.fact = q.fact;
  const sel = document.createElement("select"); sel.id = "answer-value";
  const opts = q.options && q.options.length ? q.options : [true, false];
  for (const o of opts) {
    const opt = document.createElement("option");
    opt.value = JSON.stringify(o); opt.textContent = o === true ? "oui" : o === false ? "non" : String(o);
    sel.append(opt);
  }
  input.append(sel);
}

$("#answer-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const fact = $("#question-text").dataset.fact;
  const value = JSON.parse($("#answer-value").value);
  try {
    setStatus("réponse enregistrée, analyse…");
    await api(`/v1/cases/${state.caseId}/answers`, { method: "POST", body: JSON.stringify({ answers: { [fact]: value } }) });
    state.priors = {};
    $("#sliders").innerHTML = "";  // rebuilt from the saved case's weights
    await loadCase(state.caseId);
    setStatus(`réponse : ${fact} = ${value}`);
  } catch (e) { setStatus(`erreur : ${e.message}`); }
});

// ---------------------------------------------------------------- argument graph
function layout(g) {
  const parents = {}; // node -> conclusions it supports
  for (const e of g.edges) if (e.kind !== "contradiction") (parents[e.source] ||= []).push(e.target);
  const children = {};
  for (const e of g.edges) if (e.kind !== "contradiction") (children[e.target] ||= []).push(e.source);
  const depth = { [g.verdict_node]: 0 }; const queue = [g.verdict_node];
  while (queue.length) {
    const n = queue.shift();
    for (const c of children[n] || []) if (!(c in depth)) { depth[c] = depth[n] + 1; queue.push(c); }
  }
  const layers = {};
  for (const n of g.nodes) { const d = depth[n.id] ?? 0; (layers[d] ||= []).push(n); }
  const pos = {};
  let maxRows = 0;
  for (const [d, nodes] of Object.entries(layers)) {
    nodes.forEach((n, i) => { pos[n.id] = { x: 40 + Number(d) * 190, y: 40 + i * 34 }; });
    maxRows = Math.max(maxRows, nodes.length);
  }
  return { pos, width: 40 + Object.keys(layers).length * 190 + 120, height: 60 + maxRows * 34 };
}

function drawGraph(g) {
  const svg = $("#graph"); svg.innerHTML = "";
  const { pos, width, height } = layout(g);
  svg.setAttribute("width", width); svg.setAttribute("height", height);
  const edges = el("g", {}, svg), nodes = el("g", {}, svg);
  for (const e of g.edges) {
    const a = pos[e.source], b = pos[e.target]; if (!a || !b) continue;
    const mid = (a.x + b.x) / 2;
    el("path", { d: `M${a.x},${a.y} C${mid},${a.y} ${mid},${b.y} ${b.x},${b.y}`,
      class: `edge ${e.kind}${e.critical ? " critical" : ""}`, "data-id": e.id }, edges);
  }
  for (const n of g.nodes) {
    const p = pos[n.id];
    const cls = `node ${n.kind} ${n.narrative}${n.critical ? " critical" : ""}${n.holds ? "" : " fails"}`;
    const grp = el("g", { class: cls, transform: `translate(${p.x},${p.y})`, "data-id": n.id, "data-kind": n.kind,
      opacity: (0.25 + 0.75 * n.certainty).toFixed(2) }, nodes);
    const r = n.kind === "verdict" ? 14 : 9;
    if (n.shape === "circle") el("circle", { r, class: "shape" }, grp);
    else if (n.shape === "square") el("rect", { x: -r, y: -r, width: 2 * r, height: 2 * r, class: "shape" }, grp);
    else el("polygon", { points: `0,${-r - 2} ${r + 2},0 0,${r + 2} ${-r - 2},0`, class: "shape" }, grp);
    const t = el("text", { x: r + 4, y: 4 }, grp);
    const label = n.kind === "fact" && n.value != null ? `${n.atom} = ${n.value}` : (n.label || n.atom || "");
    t.textContent = label.length > 30 ? label.slice(0, 29) + "…" : label;
    el("title", {}, grp).textContent = `${n.label}\n${n.worlds.join(", ")} · certitude ${n.certainty}` +
      (n.sources.length ? `\n§ ${n.sources.join("; ")}` : "");
    grp.addEventListener("click", () => onNode(n));
  }
}

function toggleCritical(force) {
  const svg = $("#graph");
  const on = force ?? !svg.classList.contains("critical-on");
  svg.classList.toggle("critical-on", on);
  $("#verdict").classList.toggle("active", on);
  if (on) {
    const first = svg.querySelector(".node.verdict");
    if (first) first.scrollIntoView({ block: "center", inline: "start" });
  }
}

$("#verdict").addEventListener("click", () => toggleCritical());

function evidenceOf(n) {
  const ids = state.graph.edges.filter((e) => e.kind === "grounds" && e.target === n.id).map((e) => e.source);
  return state.graph.nodes.filter((x) => ids.includes(x.id));
}

async function onNode(n) {
  document.querySelectorAll("#graph .node.selected").forEach((x) => x.classList.remove("selected"));
  const g = document.querySelector(`#graph .node[data-id="${CSS.escape(n.id)}"]`); if (g) g.classList.add("selected");
  if (n.kind === "verdict") { toggleCritical(); return; }
  const side = $("#side"); side.hidden = false;
  $("#fact-title").textContent = n.label || n.atom;
  $("#fact-detail").textContent = `${n.kind === "fact" ? "fait" : n.kind === "evidence" ? "preuve" : "règle"} · ` +
    `${n.holds ? "établi" : "non établi"}${n.value != null ? " · valeur " + JSON.stringify(n.value) : ""} · ` +
    `certitude ${n.certainty} · ${n.worlds.join(", ")}${n.sources.length ? " · § " + n.sources.join("; ") : ""}`;
  const list = $("#fact-evidence"); list.innerHTML = "";
  const evs = n.kind === "evidence" ? [n] : evidenceOf(n);
  for (const ev of evs) {
    const li = document.createElement("li");
    li.textContent = `${ev.document_id} p.${ev.page ?? "?"} [${ev.char_start}:${ev.char_end}] « ${ev.quote} »`;
    li.addEventListener("click", () => openDocument(ev));
    list.append(li);
  }
  $("#doc-title").textContent = ""; $("#doc-text").textContent = evs.length ? "" : "Aucun document ne fonde ce nœud.";
  if (evs.length) await openDocument(evs[0]);
}

async function openDocument(ev) {
  try {
    const doc = await api(`/v1/cases/${state.caseId}/documents/${encodeURIComponent(ev.document_id)}/text`);
    $("#doc-title").textContent = `${doc.id} — caractères ${ev.char_start}–${ev.char_end}`;
    const pre = $("#doc-text"); pre.innerHTML = "";
    const mark = document.createElement("mark"); mark.id = "span";
    mark.textContent = doc.text.slice(ev.char_start, ev.char_end);
    pre.append(doc.text.slice(0, ev.char_start), mark, doc.text.slice(ev.char_end));
    mark.scrollIntoView({ block: "center" });
  } catch (e) {
    $("#doc-title").textContent = `${ev.document_id} : document indisponible (${e.message})`;
    $("#doc-text").textContent = ev.quote || "";
  }
}

$("#side-close").addEventListener("click", () => { $("#side").hidden = true; });

// ---------------------------------------------------------------- loading
async function loadCase(id) {
  state.caseId = id;
  setStatus("chargement…");
  const [v, g] = await Promise.all([api(`/v1/cases/${id}/verdict`), api(`/v1/cases/${id}/graph`)]);
  state.graph = g;
  drawGraph(g);
  showVerdict(v);
  setStatus("");
  document.body.dataset.loaded = id;
}

async function listCases() {
  const data = await api("/v1/cases?limit=200");
  const sel = $("#case-select");
  sel.innerHTML = '<option value="">—</option>';
  for (const c of data.items) {
    const o = document.createElement("option"); o.value = c.id; o.textContent = `${c.name} (${c.status})`; sel.append(o);
  }
  return data.items;
}

async function init() {
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get("key")) { localStorage.setItem("lexlogic-key", hash.get("key")); history.replaceState(null, "", location.pathname + location.search); }
  state.key = localStorage.getItem("lexlogic-key") || "";
  $("#key").value = state.key;
  $("#key").addEventListener("change", async () => { state.key = $("#key").value.trim(); localStorage.setItem("lexlogic-key", state.key); await start(); });
  $("#case-select").addEventListener("change", async (e) => { if (e.target.value) { history.replaceState(null, "", `?case=${e.target.value}`); await loadCase(e.target.value).catch((x) => setStatus(`erreur : ${x.message}`)); } });
  await start();
}

async function start() {
  if (!state.key) { setStatus("saisissez une clé API"); return; }
  try {
    const items = await listCases();
    const wanted = new URLSearchParams(location.search).get("case") || (items[0] && items[0].id);
    if (wanted) { $("#case-select").value = wanted; await loadCase(wanted); }
    else setStatus("aucune affaire pour ce tenant");
  } catch (e) { setStatus(`erreur : ${e.message}`); }
}

init();
