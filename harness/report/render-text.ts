import { fleetLine } from '../fleet/fleet-line.js';
import { cacheLine } from './cache-stats.js';
import type { Report } from './report.js';

const VERDICT = { pass: 'PASS', fail: 'FAIL', skip: 'skip' } as const;

function pad(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => `  ${r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ')}`);
}

/** The verdict table a terminal shows at the end of a run. */
export function renderVerdictTable(r: Report): string {
  const lines = [
    `scenario "${r.scenario.name}" (seed ${r.seed}; replay with --seed ${r.seed}) against ${r.router}`,
    `load: ${r.load.mode === 'open' ? `open loop, ${r.load.rate} req/s` : `closed loop, ${r.load.connections} connections`} for ${r.load.durationMs / 1000} s: ${r.load.sent} requests (${r.load.streams} streaming), deadline ${r.load.deadlineMs / 1000} s${r.load.dropped ? (r.load.interrupted ? `, ${r.load.dropped} cut by the stop or not sent (not judged)` : r.load.mode === 'open' ? `, ${r.load.dropped} not sent (load generator saturated)` : `, ${r.load.dropped} in flight at the end (not judged)`) : ''}${r.load.interrupted ? `; INTERRUPTED after ${(r.durationMs / 1000).toFixed(1)} s, judged on what was answered` : ''}`,
    `answers: ${Object.entries(r.load.byStatus)
      .map(([k, v]) => `${v}×${k}`)
      .join(', ')}; latency p50 ${fmt(r.latency.answered.p50)}, p99 ${fmt(r.latency.answered.p99)}`,
    ...(r.fleet ? [fleetLine(r.fleet)] : []),
    ...cacheLines(r),
    '',
    ...pad([['check', 'verdict', 'figure'], ...r.checks.map((c) => [c.id, VERDICT[c.verdict], c.figure])]),
    '',
  ];
  const failed = r.checks.filter((c) => c.verdict === 'fail');
  for (const c of failed) {
    lines.push(`${c.id}: ${c.meaning}`);
    for (const e of c.evidence.slice(0, 3))
      lines.push(`    ${e.correlationId ? `[${e.correlationId}] ` : ''}${e.detail}`);
  }
  const counts = `${r.checks.filter((c) => c.verdict === 'pass').length} passed, ${failed.length} failed, ${r.checks.filter((c) => c.verdict === 'skip').length} skipped`;
  lines.push(
    r.verdict === 'interrupted'
      ? `verdict: INTERRUPTED after ${(r.durationMs / 1000).toFixed(1)} s, not a pass (on what was answered: ${counts})`
      : `verdict: ${r.verdict === 'pass' ? 'PASS' : 'FAIL'} (${counts})`,
  );
  return lines.join('\n');
}

/** One line on the providers whose prompt cache was used at all (hits or writes). */
function cacheLines(r: Report): string[] {
  const used = r.series.providers.filter((p) => p.cache && (p.cache.hits > 0 || p.cache.writeTokens > 0));
  return used.length === 0 ? [] : [`prompt cache: ${used.map((p) => cacheLine(p.id, p.cache!)).join('; ')}`];
}

const fmt = (v: number | null) => (v === null ? 'n/a' : `${Math.round(v)} ms`);

/** A Markdown summary for CI job pages. */
export function renderMarkdown(reports: readonly Report[]): string {
  const out: string[] = [];
  for (const r of reports) {
    out.push(
      `### ${r.verdict === 'pass' ? '✅' : r.verdict === 'interrupted' ? '⏹️ interrupted:' : '❌'} ${r.scenario.name}`,
      '',
      `Router: ${r.router} · seed ${r.seed} · ${r.load.sent} requests · latency p50 ${fmt(r.latency.answered.p50)}, p99 ${fmt(r.latency.answered.p99)}`,
      ...(r.fleet ? ['', fleetLine(r.fleet)] : []),
      '',
    );
    out.push('| check | verdict | figure |', '|---|---|---|');
    for (const c of r.checks)
      out.push(
        `| ${c.id} | ${c.verdict === 'pass' ? '✅ pass' : c.verdict === 'fail' ? '❌ fail' : '➖ skip'} | ${c.figure.replace(/\|/g, '\\|')} |`,
      );
    const failed = r.checks.filter((c) => c.verdict === 'fail');
    if (failed.length) {
      out.push('');
      for (const c of failed) {
        out.push(`**${c.id}** — ${c.meaning}`, '');
        for (const e of c.evidence.slice(0, 5))
          out.push(`- ${e.correlationId ? `\`${e.correlationId}\` ` : ''}${e.detail}`);
        out.push('');
      }
    }
    out.push('');
  }
  return out.join('\n');
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** JUnit XML: a test suite per scenario, a test case per check, for any CI. */
export function renderJunit(reports: readonly Report[]): string {
  const suites = reports.map((r) => {
    const cases = r.checks.map((c) => {
      const body =
        c.verdict === 'fail'
          ? `<failure message="${xml(c.figure)}">${xml(c.evidence.map((e) => `${e.correlationId ?? ''} ${e.detail}`).join('\n'))}</failure>`
          : c.verdict === 'skip'
            ? `<skipped message="${xml(c.figure)}"/>`
            : '';
      return `    <testcase classname="throttlelab.${xml(r.scenario.name)}" name="${xml(c.id)}" time="0">${body}</testcase>`;
    });
    // An interrupted run is an error for CI, whatever its checks said of the part that ran.
    if (r.verdict === 'interrupted')
      cases.push(
        `    <testcase classname="throttlelab.${xml(r.scenario.name)}" name="run-completed" time="0"><error message="interrupted by the user after ${(r.durationMs / 1000).toFixed(1)} s"/></testcase>`,
      );
    const failures = r.checks.filter((c) => c.verdict === 'fail').length;
    const skipped = r.checks.filter((c) => c.verdict === 'skip').length;
    const errors = r.verdict === 'interrupted' ? ' errors="1"' : '';
    return `  <testsuite name="${xml(r.scenario.name)}" tests="${cases.length}" failures="${failures}"${errors} skipped="${skipped}" time="${(r.durationMs / 1000).toFixed(3)}" timestamp="${r.startedAt}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="throttlelab">\n${suites.join('\n')}\n</testsuites>\n`;
}
