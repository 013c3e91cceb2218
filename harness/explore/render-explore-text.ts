import type { CheckTally, ExploreSummary, ShareInterval } from './aggregate-runs.js';

const pct = (x: number) => `${(x * 100).toFixed(1).replace(/\.0$/, '')} %`;

/** A share and its 95 % interval: `97 % [89.7 %, 99.2 %]`. */
export function formatShare(passes: number, n: number, i: ShareInterval): string {
  return `${pct(passes / n)} [${pct(i.low)}, ${pct(i.high)}]`;
}

function checkLine(c: CheckTally, width: number): string {
  const { pass, fail, inconclusive, skip } = c.counts;
  const counts = `PASS ${pass}  FAIL ${fail}  INCONCL ${inconclusive}  SKIP ${skip}`;
  const share = c.passShare
    ? `pass ${formatShare(c.passShare.passes, c.passShare.judged, c.passShare.interval)}`
    : 'nothing judged';
  return `    ${c.id.padEnd(width)}  ${counts.padEnd(44)}${share}`;
}

/**
 * A sweep in plain text: per scenario its runs, per check its counts and the pass share's 95 %
 * interval, then every seed that failed, broke or was inconclusive with the line that replays it.
 */
export function renderExploreText(s: ExploreSummary): string {
  const lines: string[] = [];
  const width = Math.max(0, ...s.scenarios.flatMap((t) => t.checks.map((c) => c.id.length)));
  for (const t of s.scenarios) {
    const r = t.runs;
    const ran = r.pass + r.fail + r.inconclusive + r.interrupted + r.error;
    const parts = [`${r.pass} pass`, `${r.fail} fail`, `${r.inconclusive} inconclusive`];
    if (r.error) parts.push(`${r.error} error`);
    if (r.interrupted) parts.push(`${r.interrupted} interrupted`);
    if (r.notRun) parts.push(`${r.notRun} not run`);
    lines.push(`  ${t.scenario}: ${ran} run${ran === 1 ? '' : 's'}, ${parts.join(', ')}`);
    for (const c of t.checks) lines.push(checkLine(c, width));
  }
  const notes = (kind: string, pick: (t: ExploreSummary['scenarios'][number]) => typeof t.failing) => {
    const all = s.scenarios.flatMap((t) => pick(t).map((n) => ({ t, n })));
    if (all.length === 0) return;
    lines.push('', `${kind} (${all.length}):`);
    for (const { t, n } of all) lines.push(`  ${t.scenario} seed ${n.seed}: ${n.why}`, `    ${n.replay}`);
  };
  notes('failing seeds', (t) => t.failing);
  notes('errors', (t) => t.errors);
  notes('inconclusive seeds', (t) => t.inconclusive);
  const x = s.totals;
  lines.push(
    '',
    `explore: ${s.verdict.toUpperCase()}: ${x.pass} of ${x.runs + x.notRun} runs pass (${x.fail} fail, ${x.inconclusive} inconclusive, ${x.error} error${x.notRun ? `, ${x.notRun} not run` : ''})`,
  );
  return lines.join('\n');
}
