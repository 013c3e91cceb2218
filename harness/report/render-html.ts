import { fleetLine } from '../fleet/fleet-line.js';
import { cacheLine } from './cache-stats.js';
import { brokenClauses } from '../spec/clauses.js';
import { failoverChart, latencyChart, throughputChart, timelineChart } from './charts.js';
import type { Report } from './report.js';
import { coverageLines, optionalUnmet, redactedLines } from './render-text.js';
import { evidenceLine } from './evidence-line.js';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const fmt = (v: number | null) => (v === null ? 'n/a' : `${Math.round(v)} ms`);

const STYLE = `
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:980px;padding:0 1rem;color:#222;line-height:1.45}
h1{margin-bottom:.2rem}h2{margin-top:2.2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
.muted{color:#666}.pass{color:#1e7a46;font-weight:600}.fail{color:#b3261e;font-weight:600}.skip{color:#777}.inconclusive{color:#8a6d00;font-weight:600}
table{border-collapse:collapse;width:100%;margin:.6rem 0}td,th{border-bottom:1px solid #eee;padding:.35rem .5rem;text-align:left;vertical-align:top}
th{background:#fafafa}td{overflow-wrap:anywhere}.badge{display:inline-block;padding:.15rem .6rem;border-radius:1rem;color:#fff}
.badge.pass{background:#1e7a46}.badge.fail{background:#b3261e}.badge.interrupted,.badge.inconclusive{background:#8a6d00}.interrupted{color:#8a6d00;font-weight:600}ul.evidence{margin:.2rem 0 0 1rem;padding:0;font-size:.9em}
code{background:#f4f4f4;padding:0 .25rem;border-radius:3px}svg{max-width:100%;height:auto}
`;

/** Seconds from the load's start to its last attempt (at least the load's duration). */
function timelineEnd(r: Report): number {
  let end = r.load.durationMs / 1000;
  for (const p of r.series.providers) for (const a of p.attempts) end = Math.max(end, a[0]);
  return end;
}

function section(r: Report): string {
  const checks = r.checks
    .map(
      (c) =>
        `<tr><td><code>${esc(c.id)}</code><br><span class="muted">${esc(c.title)}</span></td><td class="${c.verdict}">${c.verdict.toUpperCase()}</td><td>${esc(c.figure)}${c.threshold ? `<br><span class="muted">${esc(c.threshold)}</span>` : ''}${c.reason && c.verdict !== 'pass' ? `<br><span class="${c.verdict}">${esc(c.reason)}</span>` : ''}${
          c.verdict === 'fail' && brokenClauses(c.id) ? `<br><span class="fail">${esc(brokenClauses(c.id))}</span>` : ''
        }${
          c.verdict === 'fail' && c.evidence.length
            ? `<ul class="evidence">${c.evidence
                .slice(0, 8)
                .map(
                  (e) => `<li>${e.correlationId ? `<code>${esc(e.correlationId)}</code> ` : ''}${esc(e.detail)}</li>`,
                )
                .join('')}</ul>`
            : ''
        }</td></tr>`,
    )
    .join('');
  const redacted = redactedLines(r)
    .map((l) => `\n<p class="muted">${esc(l)}</p>`)
    .join('');
  const statuses = Object.entries(r.load.byStatus)
    .map(([k, v]) => `${v}×${esc(k)}`)
    .join(', ');
  return `
<section>
<h1>${esc(r.scenario.name)} <span class="badge ${r.verdict}">${r.verdict.toUpperCase()}</span></h1>
<p class="muted">${esc(r.scenario.description ?? '')}</p>
<p>Router: <code>${esc(r.router)}</code> · seed <code>${r.seed}</code> (replay with <code>--seed ${r.seed}</code>) · scenario <code>${esc(r.scenario.file)}</code> (sha256 ${r.scenario.sha256.slice(0, 12)}…) · ${esc(r.startedAt)}</p>${redacted}${evidenceLine(r) ? `\n<p>${esc(evidenceLine(r)!)}</p>` : ''}${r.fleet ? `\n<p>${esc(fleetLine(r.fleet))}</p>` : ''}
<p>Load: ${r.load.mode === 'open' ? `open loop at ${r.load.rate} req/s` : `closed loop, ${r.load.connections} connections`} for ${r.load.durationMs / 1000} s — ${r.load.sent} requests (${r.load.streams} streaming), deadline ${r.load.deadlineMs / 1000} s. Answers: ${statuses}. Latency p50 ${fmt(r.latency.answered.p50)}, p90 ${fmt(r.latency.answered.p90)}, p99 ${fmt(r.latency.answered.p99)}${r.latency.ttft.count ? `; time to first token p50 ${fmt(r.latency.ttft.p50)}, p99 ${fmt(r.latency.ttft.p99)}` : ''}.</p>
${coverageLines(r)
  .map((l) => `<p class="muted">${esc(l)}</p>`)
  .join(
    '\n',
  )}${r.verdict === 'inconclusive' ? `<ul>${(r.inconclusive ?? []).map((l) => `<li class="inconclusive">${esc(l)}</li>`).join('')}</ul>` : ''}${
    optionalUnmet(r).length
      ? `<ul>${optionalUnmet(r)
          .map((l) => `<li class="muted">${esc(l)}</li>`)
          .join('')}</ul>`
      : ''
  }
<h2>Checks</h2>
<table><tr><th>check</th><th>verdict</th><th>figure and evidence</th></tr>${checks}</table>
<h2>Latency and failover</h2>
${latencyChart(r)}
${failoverChart(r)}
${throughputChart(r)}
<h2>Providers</h2>
<p class="muted">Each dot is an attempt that reached the simulated provider; shaded bands are waits the provider announced. A dot inside a band arrived before the wait ended.</p>
${r.series.providers
  .map(
    (p) =>
      `${timelineChart(p, timelineEnd(r))}<p class="muted">${p.id}: ${p.totals.attempts} attempts (${Object.entries(
        p.totals.byStatus,
      )
        .map(([k, v]) => `${v}×${k}`)
        .join(', ')})${p.attempts.length < p.totals.attempts ? `; successes sampled for the chart` : ''}${
        p.cache ? `; prompt cache: ${esc(cacheLine(p.id, p.cache))}` : ''
      }.</p>`,
  )
  .join('\n')}
</section>`;
}

/** A self-contained HTML page (inline SVG charts, no external assets) for one or more runs. */
export function renderHtml(reports: readonly Report[]): string {
  const title =
    reports.length === 1 ? `throttlelab: ${reports[0]!.scenario.name}` : `throttlelab: ${reports.length} scenarios`;
  const overview =
    reports.length > 1
      ? `<h1>${reports.every((r) => r.verdict === 'pass') ? 'All scenarios pass' : reports.some((r) => r.verdict === 'fail') ? 'Some scenarios fail' : reports.some((r) => r.verdict === 'interrupted') ? 'Interrupted' : 'Some scenarios inconclusive'}</h1><table><tr><th>scenario</th><th>verdict</th><th>failed checks</th></tr>${reports
          .map(
            (r) =>
              `<tr><td>${esc(r.scenario.name)}</td><td class="${r.verdict}">${r.verdict.toUpperCase()}</td><td>${esc(
                r.checks
                  .filter((c) => c.verdict === 'fail')
                  .map((c) => c.id)
                  .join(', ') || '—',
              )}</td></tr>`,
          )
          .join('')}</table>`
      : '';
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head><body>${overview}${reports.map(section).join('\n<hr>\n')}</body></html>\n`;
}
