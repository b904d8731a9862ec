// The glass-box page: plain JS + SVG, no build, no CDN. Talks to /v1 with the key kept in localStorage.
"use strict";
const $ = (s) => document.querySelector(s);
const NS = "http://www.w3.org/2000/svg";
const state = { key: "", caseId: "", verdict: null, graph: null, priors: {}, weights: {}, timer: null };

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
const pct = (p) => (p == null ? "—" : `${(p * 100).toFixed(1)} %`);
const WORLD = { SHARED: "commun", NARRATIVE_A: "récit A", NARRATIVE_B: "récit B" };

function showVerdict(v) {
  state.verdict = v;
  const btn = $("#verdict");
  btn.className = v.label + (btn.classList.contains("active") ? " active" : "");
  $("#verdict-label").textContent = v.label;
  const pr = v.probability, p = pr.p_target;
  $("#prob").dataset.p = p == null ? "" : String(p);
  $("#prob").textContent = p == null ? "P(responsabilité) indisponible" : `P(responsabilité) = ${pct(p)}`;
  $("#summary").textContent = v.summary;
  const by = Object.entries(pr.p_by_world || {}).map(([w, x]) => `${WORLD[w] || w} : ${pct(x)}`).join(" · ");
  $("#prob-detail").textContent = `${v.status === "VERDICT" ? "verdict" : "information requise"} · ` +
    `entropie ${pr.entropy == null ? "—" : pr.entropy.toFixed(3)} bit (seuil ${pr.entropy_threshold ?? "—"})` +
    (by ? ` · P(resp. | récit) ${by}` : "");
  $("#prob-detail").dataset.entropy = pr.entropy == null ? "" : String(pr.entropy);
  $("#prob-method").textContent = pr.method;
  $("#prob-note").textContent = `Modèle probabiliste (engine.verdict) : ${pr.method === "exact" ? "inférence exacte" : pr.method}` +
    ` sur ${pr.n_worlds ?? "?"} mondes (${pr.evaluator || "—"})${pr.error ? ` ± ${pr.error.toFixed(3)}` : ""}. ` +
    "Les faits incertains sont des variables (a priori du pack), chaque ambiguïté oppose le récit A au récit B, " +
    "et les règles souples d'Alexy pondèrent l'appréciation du juge ; probabilités et preuve viennent des mêmes règles.";
  drawPosterior(v);
  drawEig(v);
  showQuestion(v);
  buildSliders(v);
}

function drawPosterior(v) {
  const svg = $("#posterior-chart"); svg.innerHTML = "";
  const pr = v.probability;
  el("text", { x: 0, y: 10, class: "chart-label" }, svg).textContent = "P(responsabilité) — globale et par récit (barre fine : P(récit))";
  const rows = [{ world: "TOTAL", p: pr.p_target, weight: null, verdict: v.label }]
    .concat(v.worlds.filter((w) => v.worlds.length > 1).map((w) => ({ world: w.world, p: w.p_liable, weight: w.weight, verdict: w.verdict })));
  rows.forEach((r, i) => {
    const y = 18 + i * 28, cls = r.world === "NARRATIVE_A" ? "bar-a" : r.world === "NARRATIVE_B" ? "bar-b" : "bar-s";
    el("text", { x: 0, y: y + 10, class: "chart-label" }, svg).textContent = r.world === "TOTAL" ? "global" : (WORLD[r.world] || r.world);
    el("rect", { x: 70, y, width: Math.max(1, 200 * (r.p ?? 0)), height: 11, class: cls, "data-world": r.world }, svg);
    el("text", { x: 275, y: y + 10, class: "chart-label" }, svg).textContent = r.p == null ? "écarté" : r.p.toFixed(3);
    if (r.weight != null) {
      el("rect", { x: 70, y: y + 13, width: Math.max(1, 200 * r.weight), height: 5, class: cls, opacity: .45 }, svg);
      el("text", { x: 275, y: y + 20, class: "chart-label" }, svg).textContent = `P(récit) ${r.weight.toFixed(2)}`;
    }
    el("text", { x: 345, y: y + 10, class: "chart-label" }, svg).textContent = r.verdict;
  });
}

function drawEig(v) {
  const svg = $("#eig-chart"); svg.innerHTML = "";
  el("text", { x: 0, y: 10, class: "chart-label" }, svg).textContent = "EIG (bits) des questions, classées par EIG / coût";
  const qs = v.questions.filter((q) => q.eig != null).slice(0, 5);
  if (!qs.length) { el("text", { x: 0, y: 28, class: "chart-label" }, svg).textContent = "aucune question informative"; return; }
  const max = Math.max(...qs.map((q) => q.eig), 1e-9);
  qs.forEach((q, i) => {
    const y = 18 + i * 21;
    el("text", { x: 0, y: y + 10, class: "chart-label" }, svg).textContent = q.fact.slice(0, 22);
    el("rect", { x: 130, y, width: Math.max(1, 150 * q.eig / max), height: 12, class: "bar-eig", "data-fact": q.fact }, svg);
    el("text", { x: 285, y: y + 10, class: "chart-label" }, svg).textContent = `${q.eig.toFixed(3)} · coût ${q.cost} · ${q.score == null ? "" : q.score.toFixed(3)}`;
  });
}

// ---------------------------------------------------------------- what-if sliders
// A prior slider moves a probability (0–100 %); an Alexy slider moves a magnitude on a log2 scale
// (½ … 8 for intensity/weight, ⅛ … 1 for reliability; Alexy's levels are 1, 2, 4 and 1, ½, ¼).
const sliderId = (name) => `slider-${name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
const toInput = (s, x) => (s.scale === "log2" ? Math.round(Math.log2(x) * 10) : Math.round(x * 100));
const fromInput = (s, n) => (s.scale === "log2" ? Math.round(2 ** (n / 10) * 1000) / 1000 : n / 100);
const shown = (s, x) => (s.scale === "log2" ? x.toFixed(2) : `${Math.round(x * 100)} %`);

function buildSliders(v) {
  const box = $("#sliders"), wbox = $("#weights");
  const existing = new Set([...document.querySelectorAll("#sliders-box input[type=range]")].map((i) => i.dataset.name));
  const wanted = v.sliders.map((s) => s.name);
  if (wanted.length === existing.size && wanted.every((f) => existing.has(f))) return; // keep focus while dragging
  box.innerHTML = ""; wbox.innerHTML = "";
  const priors = v.sliders.filter((s) => s.group === "priors"), weights = v.sliders.filter((s) => s.group === "weights");
  if (!priors.length) box.textContent = "Aucun fait incertain dans cette affaire.";
  if (!weights.length) wbox.textContent = "Aucune règle souple dans ce pack.";
  for (const s of v.sliders) {
    const div = document.createElement("div"); div.className = `slider ${s.kind}`;
    const label = document.createElement("label");
    const val = document.createElement("output");
    const input = document.createElement("input");
    const bounds = { min: toInput(s, s.min), max: toInput(s, s.max) };
    Object.assign(input, { type: "range", min: bounds.min, max: bounds.max, step: 1, value: toInput(s, s.value) });
    input.dataset.name = s.name; input.dataset.group = s.group; input.id = sliderId(s.name);
    if (s.kind === "ambiguity") input.dataset.fact = s.fact;
    val.textContent = shown(s, s.value);
    label.append(s.kind === "prior" ? `P(${s.name}) — ${s.label} ` : `${s.label} `, val);
    div.append(label, input);
    if (s.kind === "ambiguity") {
      const readings = document.createElement("div"); readings.className = "readings";
      readings.textContent = s.readings.map((r) => `${r.value} [${r.world}]${r.note ? " — " + r.note : ""}`).join(" | ");
      div.append(readings);
    }
    input.addEventListener("input", () => {
      const x = fromInput(s, Number(input.value));
      val.textContent = shown(s, x);
      state[s.group][s.name] = x;
      clearTimeout(state.timer);
      state.timer = setTimeout(whatIf, 120);
    });
    (s.group === "weights" ? wbox : box).append(div);
  }
}

async function whatIf() {
  try {
    setStatus("recalcul…");
    const v = await api(`/v1/cases/${state.caseId}/what-if`, { method: "POST",
      body: JSON.stringify({ priors: state.priors, weights: state.weights }) });
    showVerdict(v);
    setStatus("");
  } catch (e) { setStatus(`erreur : ${e.message}`); }
}

// ---------------------------------------------------------------- question / answer
function showQuestion(v) {
  const q = v.best_question || v.questions[0];
  const input = $("#answer-input"); input.innerHTML = "";
  $("#answer-btn").disabled = !q;
  if (!q) { $("#question-text").textContent = "Aucune question en attente."; delete $("#question-text").dataset.fact; return; }
  $("#question-text").textContent = q.question || q.fact;
  $("#question-text").dataset.fact = q.fact;
  if (!q.options.length && q.type && q.type !== "bool") {
    const box = document.createElement("input"); box.id = "answer-value";
    box.type = q.type === "date" ? "date" : q.type === "str" ? "text" : "number";
    box.dataset.type = q.type; input.append(box); return;
  }
  const sel = document.createElement("select"); sel.id = "answer-value";
  const opts = q.options && q.options.length ? q.options : [true, false];
  for (const o of opts) {
    const opt = document.createElement("option");
    opt.value = JSON.stringify(o); opt.textContent = o === true ? "oui" : o === false ? "non" : String(o);
    sel.append(opt);
  }
  input.append(sel);
}

function answerValue() {
  const box = $("#answer-value");
  if (box.tagName === "SELECT") return JSON.parse(box.value);
  return box.type === "number" ? Number(box.value) : box.value;
}

$("#answer-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const fact = $("#question-text").dataset.fact;
  const value = answerValue();
  try {
    setStatus("réponse enregistrée, analyse…");
    await api(`/v1/cases/${state.caseId}/answers`, { method: "POST", body: JSON.stringify({ answers: { [fact]: value } }) });
    state.priors = {}; state.weights = {};
    $("#sliders").innerHTML = ""; $("#weights").innerHTML = "";  // rebuilt from the saved case
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
  if (id !== state.caseId) { state.priors = {}; state.weights = {}; }
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
