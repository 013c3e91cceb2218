import { fleetLine } from '../fleet/fleet-line.js';
import { cacheLine } from './cache-stats.js';
import { brokenClauses } from '../spec/clauses.js';
import type { Report } from './report.js';
import { evidenceLine } from './evidence-line.js';

/** Said under the router's name when secrets were removed from its command (it may not run as shown). */
export function redactedLines(r: Report): string[] {
  return r.routerRedacted
    ? ['router command redacted: values of its variables, headers, credentials and secret flags are hidden']
    : [];
}

const VERDICT = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP', inconclusive: 'INCONCLUSIVE' } as const;

/** The run's verdict in capitals. */
export function runVerdictWord(v: Report['verdict']): string {
  return v.toUpperCase();
}

/** `3 passed, 1 failed, 2 skipped, 1 inconclusive`. */
export function checkCounts(r: Report): string {
  const n = (v: string) => r.checks.filter((c) => c.verdict === v).length;
  const notJudged = r.judgingStopped?.notJudged.length ?? 0;
  const inconclusive = n('inconclusive') - notJudged;
  return `${n('pass')} passed, ${n('fail')} failed, ${n('skip')} skipped${inconclusive ? `, ${inconclusive} inconclusive` : ''}${notJudged ? `, ${notJudged} not judged` : ''}`;
}

/**
 * One line per optional fault that met no attempt: it does not make the run inconclusive (the
 * scenario cannot force it), but what it tests went untested, and the report says so.
 */
export function optionalUnmet(r: Report): string[] {
  return (r.faults ?? [])
    .filter((f) => f.optional && f.matched === 0)
    .map((f) => `optional fault "${f.id}" (${f.kind}) met no attempt: what it tests went untested at this seed`);
}

/** Lines on the faults (attempts each matched), the harness's own lag and the router's starvation, for people. */
export function coverageLines(r: Report): string[] {
  const lines: string[] = [];
  if (r.faults?.length)
    lines.push(
      `faults (times from the load's start): ${r.faults
        .map(
          (f) =>
            `${f.id} ${f.matched === 0 ? (f.optional ? 'matched nothing (optional)' : 'MATCHED NOTHING') : `matched ${f.matched}`}`,
        )
        .join('; ')}`,
    );
  if (r.lag)
    lines.push(
      `harness lag: event loop p99 ${Math.round(r.lag.loopP99Ms)} ms (max ${Math.round(r.lag.loopMaxMs)} ms), send p99 ${Math.round(r.lag.sendP99Ms)} ms (max ${Math.round(r.lag.sendMaxMs)} ms)`,
    );
  if (r.loadWorkers)
    lines.push(
      `load workers: ${r.loadWorkers.length}, arrivals dealt round-robin; ${r.loadWorkers
        .map(
          (w) =>
            `${w.segment + 1} on ${w.host} sent ${w.sent}${w.dropped ? ` (${w.dropped} not sent)` : ''}, loop p99 ${Math.round(w.loopLag.p99Ms)} ms (max ${Math.round(w.loopLag.maxMs)} ms)`,
        )
        .join('; ')}`,
    );
  const rq = r.routerRunQueue;
  if (rq)
    lines.push(
      'unavailable' in rq
        ? `router run-queue delay: not measured: ${rq.unavailable}; the timing checks allow only for the harness's own stalls`
        : `router run-queue delay (waiting for a CPU): total ${Math.round(rq.totalMs)} ms, worst ${rq.windowMs / 1000} s window ${Math.round(rq.worstWindowMs)} ms (${rq.threads} thread${rq.threads === 1 ? '' : 's'} counted in ${rq.processes} process${rq.processes === 1 ? '' : 'es'}${rq.executables?.length ? `: ${rq.executables.join(', ')}` : ''})${
            rq.replicas
              ? `; by replica (each excuses only its own requests): ${rq.replicas.map((x, i) => `${i} total ${Math.round(x.totalMs)} ms, worst ${Math.round(x.worstWindowMs)} ms`).join('; ')}`
              : ''
          }`,
    );
  return lines;
}

function pad(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => `  ${r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ')}`);
}

/** The verdict table a terminal shows at the end of a run. */
export function renderVerdictTable(r: Report): string {
  const lines = [
    `scenario "${r.scenario.name}" (seed ${r.seed}; replay with --seed ${r.seed}) against ${r.router}`,
    ...redactedLines(r),
    `load: ${r.load.mode === 'open' ? `open loop, ${r.load.rate} req/s` : `closed loop, ${r.load.connections} connections`} for ${r.load.durationMs / 1000} s: ${r.load.sent} requests (${r.load.streams} streaming), deadline ${r.load.deadlineMs / 1000} s${r.load.dropped ? (r.load.interrupted ? `, ${r.load.dropped} cut by the stop or not sent (not judged)` : r.load.mode === 'open' ? `, ${r.load.dropped} not sent (load generator saturated)` : `, ${r.load.dropped} in flight at the end (not judged)`) : ''}${r.load.interrupted ? `; INTERRUPTED after ${(r.durationMs / 1000).toFixed(1)} s, judged on what was answered` : ''}`,
    `answers: ${Object.entries(r.load.byStatus)
      .map(([k, v]) => `${v}×${k}`)
      .join(', ')}; latency p50 ${fmt(r.latency.answered.p50)}, p99 ${fmt(r.latency.answered.p99)}`,
    ...(r.fleet ? [fleetLine(r.fleet)] : []),
    ...cacheLines(r),
    ...coverageLines(r),
    '',
    ...pad([['check', 'verdict', 'figure'], ...r.checks.map((c) => [c.id, VERDICT[c.verdict], c.figure])]),
    '',
  ];
  const notJudged = new Set(r.judgingStopped?.notJudged);
  for (const c of r.checks)
    if ((c.verdict === 'skip' || c.verdict === 'inconclusive') && c.reason && !notJudged.has(c.id)) {
      if (c.reason !== c.figure) lines.push(`${c.id} ${c.verdict}: ${c.reason}`);
      for (const e of c.evidence.slice(0, 1))
        lines.push(`    ${e.correlationId ? `[${e.correlationId}] ` : ''}${e.detail}`);
    }
  const failed = r.checks.filter((c) => c.verdict === 'fail');
  for (const c of failed) {
    lines.push(`${c.id}: ${c.meaning}`);
    if (brokenClauses(c.id)) lines.push(`    ${brokenClauses(c.id)}`);
    for (const e of c.evidence.slice(0, 3))
      lines.push(`    ${e.correlationId ? `[${e.correlationId}] ` : ''}${e.detail}`);
  }
  const counts = checkCounts(r);
  if (r.verdict === 'inconclusive') for (const why of r.inconclusive ?? []) lines.push(`inconclusive: ${why}`);
  lines.push(...optionalUnmet(r));
  const evidence = evidenceLine(r);
  if (evidence) lines.push(evidence);
  lines.push(...judgingStoppedLines(r));
  lines.push(
    r.judgingStopped
      ? `verdict: INTERRUPTED while judging, after ${(r.durationMs / 1000).toFixed(1)} s, not a pass (${counts})`
      : r.verdict === 'interrupted'
        ? `verdict: INTERRUPTED after ${(r.durationMs / 1000).toFixed(1)} s, not a pass (on what was answered: ${counts})`
        : `verdict: ${runVerdictWord(r.verdict)} (${counts})`,
  );
  return lines.join('\n');
}

/** For a run stopped while it was judged: the checks judged, and those not (never a pass). */
function judgingStoppedLines(r: Report): string[] {
  const s = r.judgingStopped;
  if (!s) return [];
  const of = s.judged.length + s.notJudged.length;
  return [
    `judging stopped by the user: ${s.judged.length} of ${of} checks judged${s.judged.length ? ` (${s.judged.join(', ')})` : ''}`,
    ...(s.notJudged.length ? [`not judged (INCONCLUSIVE, never a pass): ${s.notJudged.join(', ')}`] : []),
  ];
}

/** One line on the providers whose prompt cache was used at all (hits or writes). */
function cacheLines(r: Report): string[] {
  const used = r.series.providers.filter((p) => p.cache && (p.cache.hits > 0 || p.cache.writeTokens > 0));
  return used.length === 0 ? [] : [`prompt cache: ${used.map((p) => cacheLine(p.id, p.cache!)).join('; ')}`];
}

const fmt = (v: number | null) => (v === null ? 'n/a' : `${Math.round(v)} ms`);

const MD_VERDICT = { pass: '✅ pass', fail: '❌ fail', skip: '➖ skip', inconclusive: '❔ inconclusive' } as const;

/** A Markdown summary for CI job pages. */
export function renderMarkdown(reports: readonly Report[]): string {
  const out: string[] = [];
  for (const r of reports) {
    out.push(
      `### ${r.verdict === 'pass' ? '✅' : r.verdict === 'interrupted' ? '⏹️ interrupted:' : r.verdict === 'inconclusive' ? '❔ inconclusive:' : '❌'} ${r.scenario.name}`,
      '',
      `Router: ${r.router} · seed ${r.seed} · ${r.load.sent} requests · latency p50 ${fmt(r.latency.answered.p50)}, p99 ${fmt(r.latency.answered.p99)}`,
      ...redactedLines(r).flatMap((l) => ['', l]),
      ...(evidenceLine(r) ? ['', `${evidenceLine(r)!.replace(/^evidence/, 'Evidence')}.`] : []),
      ...(r.fleet ? ['', fleetLine(r.fleet)] : []),
      ...coverageLines(r).flatMap((l) => ['', l]),
      ...(r.verdict === 'inconclusive' ? ['', ...(r.inconclusive ?? []).map((l) => `- inconclusive: ${l}`)] : []),
      ...(optionalUnmet(r).length ? ['', ...optionalUnmet(r).map((l) => `- ${l}`)] : []),
      '',
    );
    out.push('| check | verdict | figure |', '|---|---|---|');
    for (const c of r.checks)
      out.push(
        `| ${c.id} | ${MD_VERDICT[c.verdict]} | ${(c.reason && c.verdict !== 'pass' && c.reason !== c.figure ? `${c.figure} (${c.reason})` : c.figure).replace(/\|/g, '\\|')} |`,
      );
    const failed = r.checks.filter((c) => c.verdict === 'fail');
    if (failed.length) {
      out.push('');
      for (const c of failed) {
        out.push(`**${c.id}** — ${c.meaning}${brokenClauses(c.id) ? ` (${brokenClauses(c.id)})` : ''}`, '');
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

/** A check's judging time as JUnit's seconds; 0 for a report saved before it was measured. */
const seconds = (ms: number | undefined) => ((ms ?? 0) / 1000).toFixed(3);

/** JUnit XML: a test suite per scenario, a test case per check, for any CI. */
export function renderJunit(reports: readonly Report[]): string {
  const suites = reports.map((r) => {
    const cases = r.checks.map((c) => {
      const body =
        c.verdict === 'fail'
          ? `<failure message="${xml(brokenClauses(c.id) ? `${c.figure}; ${brokenClauses(c.id)}` : c.figure)}">${xml(c.evidence.map((e) => `${e.correlationId ?? ''} ${e.detail}`).join('\n'))}</failure>`
          : c.verdict === 'skip' || c.verdict === 'inconclusive'
            ? `<skipped message="${xml(`${c.verdict === 'inconclusive' ? 'INCONCLUSIVE: ' : ''}${c.reason ?? c.figure}`)}"/>`
            : '';
      return `    <testcase classname="throttlelab.${xml(r.scenario.name)}" name="${xml(c.id)}" time="${seconds(c.judgedMs)}">${body}</testcase>`;
    });
    // An interrupted run is an error for CI, whatever its checks said of the part that ran.
    if (r.verdict === 'interrupted')
      cases.push(
        `    <testcase classname="throttlelab.${xml(r.scenario.name)}" name="run-completed" time="0"><error message="interrupted by the user after ${(r.durationMs / 1000).toFixed(1)} s"/></testcase>`,
      );
    // An optional fault that met no attempt is skipped: CI shows what went untested, and still passes.
    for (const f of (r.faults ?? []).filter((x) => x.optional && x.matched === 0))
      cases.push(
        `    <testcase classname="throttlelab.${xml(r.scenario.name)}" name="${xml(`fault-met:${f.id}`)}" time="0"><skipped message="${xml(`optional fault "${f.id}" (${f.kind}) met no attempt`)}"/></testcase>`,
      );
    const failures = r.checks.filter((c) => c.verdict === 'fail').length;
    // An inconclusive run is neither a pass nor a failure, as its exit code 3 is (docs/ci.md): one
    // case says why, skipped like each inconclusive check, so the test view and the job agree.
    if (r.verdict === 'inconclusive')
      cases.push(
        `    <testcase classname="throttlelab.${xml(r.scenario.name)}" name="run-conclusive" time="0"><skipped message="${xml(`INCONCLUSIVE: ${(r.inconclusive ?? []).join('; ')}`)}"/></testcase>`,
      );
    const skipped =
      r.checks.filter((c) => c.verdict === 'skip' || c.verdict === 'inconclusive').length +
      (r.faults ?? []).filter((f) => f.optional && f.matched === 0).length +
      (r.verdict === 'inconclusive' ? 1 : 0);
    const errors = r.verdict === 'interrupted' ? ' errors="1"' : '';
    return `  <testsuite name="${xml(r.scenario.name)}" tests="${cases.length}" failures="${failures}"${errors} skipped="${skipped}" time="${(r.durationMs / 1000).toFixed(3)}" timestamp="${r.startedAt}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="throttlelab">\n${suites.join('\n')}\n</testsuites>\n`;
}
