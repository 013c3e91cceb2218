// The live dashboard's page: one self-contained HTML document (echarts from the dashboard server,
// no CDN) fed by the simulator's event stream through the dashboard's /control/ proxy.

const STYLE = `
*{box-sizing:border-box}body{font-family:system-ui,sans-serif;margin:0;padding:1rem;color:#222;background:#fafafa;line-height:1.4}
header{display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:baseline}h1{font-size:1.3rem;margin:0}h2{font-size:1.05rem;margin:1.2rem 0 .4rem}
.muted{color:#666}.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,560px),1fr));gap:.8rem}
.card{background:#fff;border:1px solid #e4e4e4;border-radius:6px;padding:.6rem .8rem;min-width:0}
.chart{width:100%;height:240px}.card h3{margin:0 0 .2rem;font-size:1rem}.totals{font-size:.9rem}
table{border-collapse:collapse;width:100%;background:#fff}td,th{border-bottom:1px solid #eee;padding:.35rem .5rem;text-align:left;font-size:.92rem}
.active{color:#b3261e;font-weight:600}button{font:inherit;padding:.25rem .7rem;border-radius:4px;border:1px solid #999;background:#fff;cursor:pointer}
button:disabled{opacity:.45;cursor:default}#status.live{color:#1e7a46}#status.down{color:#b3261e}
@media (max-width:600px){body{padding:.5rem}.chart{height:220px}td,th{padding:.3rem}}
`;

// Plain JavaScript for the browser (no template literals inside, so it embeds as is).
const SCRIPT = String.raw`
var COLORS = { ok: '#2e9d5b', rate: '#d9822b', overload: '#c23b22', error: '#8e44ad', none: '#555' };
function statusClass(s) { return s >= 200 && s < 300 ? 'ok' : s === 429 ? 'rate' : s === 529 || s === 503 ? 'overload' : s === 0 ? 'none' : 'error'; }
var MAX_POINTS = 3000, WINDOW_S = 120;
var state = { providers: {}, catalogue: [], faults: [], t: 0 };
var quotaChart = null;
function el(tag, attrs, text) { var e = document.createElement(tag); for (var k in attrs || {}) e.setAttribute(k, attrs[k]); if (text !== undefined) e.textContent = text; return e; }
function hello(h) {
  document.getElementById('scenario').textContent = h.scenario;
  document.getElementById('seed').textContent = 'seed ' + h.seed;
  var grid = document.getElementById('providers'); grid.textContent = '';
  h.providers.forEach(function (p) {
    var card = el('div', { class: 'card' }); card.appendChild(el('h3', {}, p.id + ' (' + p.vendor + ')'));
    var totals = el('div', { class: 'totals muted', 'data-totals': p.id }, 'no attempts yet'); card.appendChild(totals);
    var div = el('div', { class: 'chart', 'data-chart': 'attempts-' + p.id }); card.appendChild(div); grid.appendChild(card);
    state.providers[p.id] = { points: {}, bands: [], chart: echarts.init(div), totals: totals };
  });
  quotaChart = quotaChart || echarts.init(document.querySelector('[data-chart=quota]'));
  state.catalogue = h.catalogue || [];
  buildFaults(); renderFaults();
}
function addBand(bands, from, to) {
  var last = bands[bands.length - 1];
  if (last && from <= last[1]) { last[1] = Math.max(last[1], to); return; }
  bands.push([from, to]); if (bands.length > 200) bands.shift();
}
function tick(k) {
  state.t = k.t; state.faults = k.faults;
  document.getElementById('clock').textContent = k.t.toFixed(0) + ' s';
  k.attempts.forEach(function (a) {
    var p = state.providers[a[1]]; if (!p) return;
    var key = String(a[2]); (p.points[key] = p.points[key] || []).push([a[0], key]);
    if (p.points[key].length > MAX_POINTS) p.points[key].shift();
    if (a[3] !== null && a[3] > 0) addBand(p.bands, a[0], a[0] + a[3] / 1000);
  });
  Object.keys(state.providers).forEach(function (id) {
    var p = state.providers[id], byStatus = k.totals[id] || {};
    var parts = Object.keys(byStatus).sort().map(function (s) { return byStatus[s] + '×' + (s === '0' ? 'no status' : s); });
    p.totals.textContent = parts.length ? parts.join(', ') : 'no attempts yet';
    drawProvider(p);
  });
  drawQuota(k.quota); renderFaults();
}
function drawProvider(p) {
  var statuses = Object.keys(p.points).sort();
  var series = statuses.map(function (s) {
    return { name: s, type: 'scatter', symbolSize: 6, data: p.points[s], itemStyle: { color: COLORS[statusClass(Number(s))] } };
  });
  series.push({ name: 'announced waits', type: 'scatter', data: [], markArea: { silent: true, itemStyle: { color: 'rgba(217,130,43,0.18)' },
    data: p.bands.map(function (b) { return [{ xAxis: b[0] }, { xAxis: b[1] }]; }) } });
  p.chart.setOption({ animation: false, grid: { left: 44, right: 12, top: 28, bottom: 28 }, legend: { top: 0, type: 'scroll' },
    tooltip: { trigger: 'item' },
    xAxis: { type: 'value', name: 's', min: Math.max(0, Math.floor(state.t - WINDOW_S)), max: Math.ceil(state.t) + 1 },
    yAxis: { type: 'category', data: statuses }, series: series }, { replaceMerge: ['series'] });
}
function drawQuota(quota) {
  var names = [], values = [];
  Object.keys(quota).forEach(function (id) { quota[id].forEach(function (b) {
    names.push(id + ' · ' + b.rule); values.push(b.limit > 0 ? Math.round((100 * b.remaining) / b.limit) : 0); }); });
  document.querySelector('[data-chart=quota]').style.height = Math.max(160, 26 * names.length + 50) + 'px';
  quotaChart.resize();
  quotaChart.setOption({ animation: false, grid: { left: 8, right: 48, top: 10, bottom: 24, containLabel: true }, tooltip: {},
    xAxis: { type: 'value', max: 100, name: '% left' }, yAxis: { type: 'category', data: names, inverse: true },
    series: [{ type: 'bar', data: values, itemStyle: { color: '#3b6fb6' }, label: { show: true, position: 'right', formatter: '{c}%' } }] });
}
function faultState(id) {
  var f = state.faults.filter(function (x) { return x.id === id; })[0];
  if (!f) return { text: 'not on the timeline', on: false };
  if (f.active) return { text: 'ACTIVE since ' + Math.max(0, f.startAt).toFixed(0) + ' s (' + f.applied + ' applied)', on: true, active: true };
  if (f.startAt > state.t) return { text: 'scheduled at ' + f.startAt.toFixed(0) + ' s', on: true };
  return { text: 'ended at ' + (f.endAt === null ? '?' : f.endAt.toFixed(0)) + ' s (' + f.applied + ' applied)', on: true };
}
// The rows are built once (hello) and updated in place on each tick: a button never moves under a click.
var faultRows = {};
function buildFaults() {
  var body = document.getElementById('faults'); body.textContent = ''; faultRows = {};
  if (!state.catalogue.length) { var r = el('tr'); r.appendChild(el('td', { colspan: '4' }, 'The scenario has no faults to add.')); body.appendChild(r); }
  state.catalogue.forEach(function (spec) {
    var row = el('tr', { 'data-fault': spec.id }), stateCell = el('td', { class: 'muted' });
    row.appendChild(el('td', {}, spec.id)); row.appendChild(el('td', {}, spec.kind + (spec.status ? ' ' + spec.status : '')));
    row.appendChild(stateCell);
    var cell = el('td'), add = el('button', { 'data-action': 'add' }, 'Add now'), rm = el('button', { 'data-action': 'remove' }, 'Remove');
    add.onclick = function () { control('POST', 'control/faults', Object.assign({}, spec, { at: 0 })); };
    rm.onclick = function () { control('DELETE', 'control/faults/' + encodeURIComponent(spec.id)); };
    cell.appendChild(add); cell.appendChild(document.createTextNode(' ')); cell.appendChild(rm); row.appendChild(cell); body.appendChild(row);
    faultRows[spec.id] = { state: stateCell, add: add, rm: rm };
  });
}
function renderFaults() {
  state.catalogue.forEach(function (spec) {
    var s = faultState(spec.id), r = faultRows[spec.id]; if (!r) return;
    if (r.state.textContent !== s.text) r.state.textContent = s.text;
    r.state.className = s.active ? 'active' : 'muted';
    r.add.disabled = !!s.active; r.rm.disabled = !s.on;
  });
}
function control(method, url, body) {
  var msg = document.getElementById('message');
  fetch(url, { method: method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined })
    .then(function (r) { return r.ok ? null : r.json().then(function (j) { throw new Error(j.error && j.error.message || r.status); }); })
    .then(function () { msg.textContent = ''; }, function (e) { msg.textContent = String(e.message || e); });
}
var source = new EventSource('control/events');
var statusEl = document.getElementById('status');
source.addEventListener('hello', function (e) { hello(JSON.parse(e.data)); statusEl.textContent = 'live'; statusEl.className = 'live'; });
source.addEventListener('tick', function (e) { tick(JSON.parse(e.data)); });
source.onerror = function () { statusEl.textContent = 'disconnected (simulator stopped?)'; statusEl.className = 'down'; };
window.addEventListener('resize', function () {
  Object.keys(state.providers).forEach(function (id) { state.providers[id].chart.resize(); }); if (quotaChart) quotaChart.resize();
});
`;

/** The dashboard's HTML page. */
export function dashboardPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>throttlelab: live</title><link rel="icon" href="data:,"><style>${STYLE}</style><script src="echarts.min.js"></script></head><body>
<header><h1>throttlelab <span id="scenario"></span></h1><span id="seed" class="muted"></span><span id="clock" class="muted"></span><span id="status">connecting…</span></header>
<h2>Attempts by status</h2><p class="muted">Each dot is an attempt that reached a simulated provider; shaded bands are the waits the provider announced.</p>
<div id="providers" class="grid"></div>
<h2>Quota left</h2><div class="card"><div class="chart" data-chart="quota"></div></div>
<h2>Faults</h2><p class="muted">The scenario's fault catalogue: add one now (from this moment, for its length) or remove it from the timeline.</p>
<table><thead><tr><th>fault</th><th>kind</th><th>state</th><th></th></tr></thead><tbody id="faults"></tbody></table>
<p id="message" class="active" role="status"></p>
<script>${SCRIPT}</script></body></html>
`;
}
