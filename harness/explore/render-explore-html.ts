import type { ExploreSummary, SeedNote } from './aggregate-runs.js';
import { formatSeedRange } from './seed-range.js';
import { formatShare } from './render-explore-text.js';

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A sweep as one self-contained HTML page: a table per scenario, then the seeds to replay. */
export function renderExploreHtml(s: ExploreSummary, about: { router: string; generatedAt: string }): string {
  const rows = s.scenarios
    .map((t) => {
      const checks = t.checks
        .map(
          (c) =>
            `<tr><td>${esc(c.id)}</td><td>${c.counts.pass}</td><td class="${c.counts.fail ? 'fail' : ''}">${c.counts.fail}</td><td>${c.counts.inconclusive}</td><td>${c.counts.skip}</td><td>${c.passShare ? esc(formatShare(c.passShare.passes, c.passShare.judged, c.passShare.interval)) : 'nothing judged'}</td></tr>`,
        )
        .join('');
      const notes = (
        [
          ...t.failing.map((n) => ['fail', n]),
          ...t.errors.map((n) => ['error', n]),
          ...t.inconclusive.map((n) => ['inconclusive', n]),
        ] as Array<[string, SeedNote]>
      )
        .map(
          ([kind, n]) =>
            `<li class="${kind}">seed ${n.seed} ${kind}: ${esc(n.why)}<br><code>${esc(n.replay)}</code></li>`,
        )
        .join('');
      const r = t.runs;
      return `<section><h2>${esc(t.scenario)}</h2><p>${r.pass} pass, ${r.fail} fail, ${r.inconclusive} inconclusive, ${r.error} error${r.notRun ? `, ${r.notRun} not run` : ''}</p>
<table><thead><tr><th>check</th><th>PASS</th><th>FAIL</th><th>INCONCLUSIVE</th><th>SKIP</th><th>pass share [95 % Wilson]</th></tr></thead><tbody>${checks}</tbody></table>${notes ? `<ul>${notes}</ul>` : ''}</section>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>throttlelab explore: ${s.verdict.toUpperCase()}</title>
<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child,th:first-child{text-align:left}.fail{color:#b00;font-weight:bold}.error{color:#b00}.inconclusive{color:#a60}code{font-size:12px}</style></head>
<body><h1>throttlelab explore: ${s.verdict.toUpperCase()}</h1>
<p>${esc(about.router)}; seeds ${esc(formatSeedRange(s.seeds))}; ${s.totals.pass} of ${s.totals.runs + s.totals.notRun} runs pass; generated ${esc(about.generatedAt)}.</p>
${rows}
</body></html>
`;
}
