import { DASHBOARD_LOGIC } from './dashboard-logic.js';

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
.form{display:flex;flex-wrap:wrap;gap:.4rem .8rem;margin-bottom:.5rem}.form label{display:flex;flex-direction:column;font-size:.9rem}.form .wide{flex:1 1 100%}
input,select,textarea{font:inherit;padding:.2rem .3rem;max-width:100%}#message{white-space:pre-line}
@media (max-width:600px){body{padding:.5rem}.chart{height:220px}td,th{padding:.3rem}}
`;

// Plain JavaScript for the browser (no template literals inside, so it embeds as is); its
// decisions are the functions of dashboard-logic.ts, embedded before it.
const SCRIPT = String.raw`
var COLORS = { ok: '#2e9d5b', rate: '#d9822b', overload: '#c23b22', error: '#8e44ad', none: '#555' };
var MAX_POINTS = 3000, WINDOW_S = 120, BACKLOG_ROWS = 20000, LEDGER_PAGE = 10000;
var state = { providers: {}, catalogue: [], faults: [], t: 0 };
var quotaChart = null, feed = attemptFeed();
function el(tag, attrs, text) { var e = document.createElement(tag); for (var k in attrs || {}) e.setAttribute(k, attrs[k]); if (text !== undefined) e.textContent = text; return e; }
function say(text) { document.getElementById('message').textContent = text; }
function hello(h) {
  document.getElementById('scenario').textContent = h.scenario;
  document.getElementById('seed').textContent = 'seed ' + h.seed;
  var grid = document.getElementById('providers'); grid.textContent = '';
  state.providers = {};
  h.providers.forEach(function (p) {
    var card = el('div', { class: 'card' }); card.appendChild(el('h3', {}, p.id + ' (' + p.vendor + ')'));
    var totals = el('div', { class: 'totals muted', 'data-totals': p.id }, 'no attempts yet'); card.appendChild(totals);
    var div = el('div', { class: 'chart', 'data-chart': 'attempts-' + p.id }); card.appendChild(div); grid.appendChild(card);
    state.providers[p.id] = { points: {}, bands: [], chart: echarts.init(div), totals: totals };
  });
  quotaChart = quotaChart || echarts.init(document.querySelector('[data-chart=quota]'));
  state.catalogue = h.catalogue || [];
  faultKey = null; renderFaults();
  // The stream carries what ends from now on; what ended before the page opened is in the ledger.
  feed = attemptFeed(); loadBacklog(feed, h.startedAt);
}
function loadBacklog(f, startedAt) {
  var rows = [];
  var page = function (p) { return fetch('control/ledger?offset=' + p.offset + '&limit=' + p.limit).then(function (r) { return r.json(); }); };
  page({ offset: 0, limit: 0 }).then(function (head) {
    return backlogPages(head.total, BACKLOG_ROWS, LEDGER_PAGE).reduce(function (done, p) {
      return done.then(function () { return page(p); }).then(function (j) { rows = rows.concat(j.rows); });
    }, Promise.resolve());
  }).then(function () { draw(f.backlog(rows, startedAt)); }, function (e) {
    say('could not read the attempts made before this page opened: ' + e); draw(f.backlog([], startedAt));
  });
}
function draw(attempts) {
  attempts.forEach(function (a) {
    var p = state.providers[a[1]]; if (!p) return;
    var key = String(a[2]); (p.points[key] = p.points[key] || []).push([a[0], key]);
    if (p.points[key].length > MAX_POINTS) p.points[key].shift();
    if (a[3] !== null && a[3] > 0) addBand(p.bands, a[0], a[0] + a[3] / 1000);
  });
  Object.keys(state.providers).forEach(function (id) { drawProvider(state.providers[id]); });
}
function tick(k) {
  state.t = k.t; state.faults = k.faults;
  document.getElementById('clock').textContent = k.t.toFixed(0) + ' s';
  Object.keys(state.providers).forEach(function (id) {
    var p = state.providers[id], byStatus = k.totals[id] || {};
    var parts = Object.keys(byStatus).sort().map(function (s) { return byStatus[s] + '×' + (s === '0' ? 'no status' : s); });
    p.totals.textContent = parts.length ? parts.join(', ') : 'no attempts yet';
  });
  draw(feed.stream(k.attempts)); drawQuota(k.quota); renderFaults();
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
// Rows are rebuilt only when the set of faults changes and updated in place on each tick: a button never moves under a click.
var faultRows = {}, faultKey = null;
function button(action, text, onclick) { var b = el('button', { 'data-action': action }, text); b.onclick = onclick; return b; }
function buildFaults(ids) {
  var body = document.getElementById('faults'); body.textContent = ''; faultRows = {};
  if (!ids.length) { var r = el('tr'); r.appendChild(el('td', { colspan: '4' }, 'No faults yet: add one with the form below.')); body.appendChild(r); }
  ids.forEach(function (id) {
    var spec = state.catalogue.filter(function (c) { return c.id === id; })[0];
    var live = state.faults.filter(function (f) { return f.id === id; })[0];
    var row = el('tr', { 'data-fault': id }), stateCell = el('td', { class: 'muted' }), path = 'control/faults/' + encodeURIComponent(id);
    row.appendChild(el('td', {}, id)); row.appendChild(el('td', {}, spec ? spec.kind + (spec.status ? ' ' + spec.status : '') : live.kind));
    row.appendChild(stateCell);
    var cell = el('td'), b = {
      add: button('add', 'Add now', function () { control('POST', 'control/faults', Object.assign({}, spec, { at: 0 })); }),
      rm: button('remove', 'Remove', function () { control('DELETE', path); }),
      on: button('enable', 'Enable', function () { control('PATCH', path, { enabled: true }); }),
      off: button('disable', 'Disable', function () { control('PATCH', path, { enabled: false }); }) };
    if (!spec) b.add.hidden = true;
    [b.add, b.off, b.on, b.rm].forEach(function (x) { cell.appendChild(x); cell.appendChild(document.createTextNode(' ')); });
    row.appendChild(cell); body.appendChild(row);
    faultRows[id] = { state: stateCell, b: b, spec: spec };
  });
}
function renderFaults() {
  var ids = faultRowIds(state.catalogue, state.faults), key = ids.join('\n');
  if (key !== faultKey) { buildFaults(ids); faultKey = key; }
  ids.forEach(function (id) {
    var v = faultView(state.faults.filter(function (f) { return f.id === id; })[0], state.t), r = faultRows[id];
    if (r.state.textContent !== v.text) r.state.textContent = v.text;
    r.state.className = v.active ? 'active' : 'muted';
    r.b.add.disabled = !v.canAdd || !r.spec; r.b.rm.disabled = !v.canRemove; r.b.on.disabled = !v.canEnable; r.b.off.disabled = !v.canDisable;
  });
}
function control(method, url, body) {
  fetch(url, { method: method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined })
    .then(function (r) { return r.ok ? null : r.json().then(function (j) {
      var e = j.error || {}; throw new Error((e.message || r.status) + (e.issues ? '\n' + e.issues.join('\n') : '')); }); })
    .then(function () { say(''); }, function (e) { say(String(e.message || e)); });
}
document.getElementById('fault-form').addEventListener('submit', function (e) {
  e.preventDefault();
  var form = {}; ['id', 'kind', 'status', 'at', 'for', 'providers', 'more'].forEach(function (n) { form[n] = e.target.elements[n].value; });
  var req = faultRequest(form, state.faults.map(function (f) { return f.id; }));
  if (!req.ok) return say(req.error);
  control(req.method, req.url, req.body);
});
var source = new EventSource('control/events');
var statusEl = document.getElementById('status');
source.addEventListener('hello', function (e) { hello(JSON.parse(e.data)); statusEl.textContent = 'live'; statusEl.className = 'live'; });
source.addEventListener('tick', function (e) { tick(JSON.parse(e.data)); });
source.onerror = function () { statusEl.textContent = 'disconnected (simulator stopped?)'; statusEl.className = 'down'; };
window.addEventListener('resize', function () {
  Object.keys(state.providers).forEach(function (id) { state.providers[id].chart.resize(); }); if (quotaChart) quotaChart.resize();
});
`;

const KINDS = ['status', 'latency', 'hang', 'reset', 'malformed', 'stream-break', 'keep-alive'];

// Any fault of the grammar (docs/spec.md, a scenario's "faults"), checked by the simulator's schema.
const FORM = `<form id="fault-form" class="card"><div class="form">
<label>id <input name="id" required placeholder="storm"></label>
<label>kind <select name="kind">${KINDS.map((k) => `<option>${k}</option>`).join('')}</select></label>
<label>status <input name="status" inputmode="numeric" placeholder="429"></label>
<label>at <input name="at" placeholder="0s"></label><label>for <input name="for" placeholder="30s"></label>
<label>providers <input name="providers" placeholder="openai, gemini"></label>
<label class="wide">more fields (JSON) <textarea name="more" rows="2" placeholder='{"hint": {"seconds": 5}, "match": {"probability": 0.5}}'></textarea></label>
</div><button type="submit">Add or update</button></form>`;

/** The dashboard's HTML page. */
export function dashboardPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>throttlelab: live</title><link rel="icon" href="data:,"><style>${STYLE}</style><script src="echarts.min.js"></script></head><body>
<header><h1>throttlelab <span id="scenario"></span></h1><span id="seed" class="muted"></span><span id="clock" class="muted"></span><span id="status">connecting…</span></header>
<h2>Attempts by status</h2><p class="muted">Each dot is an attempt that reached a simulated provider; shaded bands are the waits the provider announced.</p>
<div id="providers" class="grid"></div>
<h2>Quota left</h2><div class="card"><div class="chart" data-chart="quota"></div></div>
<h2>Faults</h2><p class="muted">The scenario's catalogue and every fault on the timeline: add one now (from this moment, for its length), disable, enable or remove it.</p>
<table><thead><tr><th>fault</th><th>kind</th><th>state</th><th></th></tr></thead><tbody id="faults"></tbody></table>
<h2>Add or change a fault</h2><p class="muted">Any fault of the scenario grammar; an id already on the timeline changes that fault (the fields given replace its own).</p>
${FORM}
<p id="message" class="active" role="status"></p>
<script>${DASHBOARD_LOGIC}
${SCRIPT}</script></body></html>
`;
}
