import type { Comparison, FigureChange, ScenarioChange } from './compare-reports.js';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function num(v: number | null, unit: string): string {
  if (v === null) return 'n/a';
  if (unit.startsWith('ms')) return `${Math.round(v)} ms`;
  if (unit === 'share') return `${(v * 100).toFixed(1)}%`;
  return Number.isInteger(v) ? String(v) : v.toFixed(2);
}

function delta(f: FigureChange): string {
  if (f.before === null || f.after === null) return '';
  const d = f.after - f.before;
  if (d === 0) return '=';
  const sign = d > 0 ? '+' : '−';
  if (f.unit.startsWith('ms')) return `${sign}${Math.round(Math.abs(d))} ms`;
  if (f.unit === 'share') return `${sign}${(Math.abs(d) * 100).toFixed(1)} pt`;
  return `${sign}${Number.isInteger(d) ? Math.abs(d) : Math.abs(d).toFixed(2)}`;
}

const mark = (worse: boolean, better: boolean) => (worse ? 'WORSE' : better ? 'better' : '');
const verdict = (v: string | undefined) => (v === undefined ? '—' : v.toUpperCase());
/** The unit as a reader says it: a share is a percentage of the requests sent. */
const unitLabel = (unit: string) => (unit === 'share' ? '% of requests' : unit === 'ratio' ? 'per request' : unit);

/** The rows of one scenario's comparison: [what, unit, before, after, change, mark]. */
function rows(s: ScenarioChange): string[][] {
  const out: string[][] = [];
  for (const f of s.figures)
    out.push([
      f.name,
      unitLabel(f.unit),
      num(f.before, f.unit),
      num(f.after, f.unit),
      delta(f),
      f.informational && (f.before ?? 0) !== (f.after ?? 0) ? '(not gated)' : mark(f.worse, f.better),
    ]);
  for (const c of s.checks) {
    const unit = c.unit;
    const show = (side: typeof c.before) =>
      side ? `${verdict(side.verdict)}${side.value === null ? '' : ` ${num(side.value, unit)}`}` : '—';
    out.push([
      c.id,
      unitLabel(unit),
      show(c.before),
      show(c.after),
      c.value ? delta(c.value) : '',
      c.worse
        ? 'WORSE'
        : c.better
          ? 'better'
          : c.coverage
            ? 'coverage'
            : c.value?.informational && c.value.before !== c.value.after
              ? '(not gated)'
              : '',
    ]);
  }
  return out;
}

const HEADER = ['', 'unit', 'before', 'after', 'change', ''];

function heading(s: ScenarioChange): string {
  const routers =
    s.before && s.after && s.before.router !== s.after.router
      ? ` (${s.before.router} → ${s.after.router})`
      : s.after
        ? ` (${s.after.router})`
        : '';
  const what = !s.after
    ? 'missing afterwards'
    : !s.before
      ? 'new'
      : `${verdict(s.before.verdict)} → ${verdict(s.after.verdict)}`;
  return `${s.name}: ${what}${routers}`;
}

function tolerance(c: Comparison): string {
  const t = c.tolerance;
  return `tolerance: ${t.percent}% for counts, shares and ratios; ${t.latencyPercent === undefined ? 'times in ms shown, not gated (--latency-tolerance to gate them)' : `${t.latencyPercent}% and at least ${t.latencySlackMs} ms for times`}`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `name (what, what)` for each scenario where `pick` holds, or for the scenario's verdict alone. */
function which(c: Comparison, pick: (x: { worse: boolean; better: boolean }) => boolean): string {
  return c.scenarios
    .filter(pick)
    .map(
      (s) =>
        `${s.name} (${[...s.checks.filter(pick).map((k) => k.id), ...s.figures.filter(pick).map((f) => f.name)].join(', ') || 'verdict'})`,
    )
    .join('; ');
}

/** The overall verdict, then what got worse and what got better. */
function summaryLine(c: Comparison): string {
  const n = c.scenarios.length;
  const worse = c.scenarios.filter((s) => s.worse).length;
  const better = c.scenarios.filter((s) => s.better).length;
  const w = `worse in ${worse} of ${plural(n, 'scenario')}: ${which(c, (x) => x.worse)}`;
  const b = `better in ${better} of ${plural(n, 'scenario')}: ${which(c, (x) => x.better)}`;
  switch (c.verdict) {
    case 'same':
      return 'compare: SAME: nothing got worse or better';
    case 'better':
      return `compare: BETTER: nothing got worse; ${b}`;
    case 'worse':
      return `compare: WORSE: ${w}`;
    case 'mixed':
      return `compare: MIXED: ${w}; ${b}`;
  }
}

/** The checks judged on one side only (SKIP or absent on the other): listed, never called worse. */
function coverageLine(c: Comparison): string[] {
  const moved = c.scenarios.flatMap((s) =>
    s.checks
      .filter((k) => k.coverage)
      .map((k) => `${s.name}/${k.id} ${verdict(k.before?.verdict)} → ${verdict(k.after?.verdict)}`),
  );
  return moved.length === 0
    ? []
    : [`coverage changed (not worse) for ${plural(moved.length, 'check')}: ${moved.join(', ')}`];
}

/** The comparison as a terminal table, one block per scenario, ending with the gate's line. */
export function renderCompareTable(c: Comparison): string {
  const lines: string[] = [];
  for (const s of c.scenarios) {
    lines.push(`${s.worse ? 'WORSE ' : ''}${heading(s)}`);
    const all = [HEADER, ...rows(s)];
    const widths = all[0]!.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
    for (const r of all) lines.push(`  ${r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')}`.trimEnd());
    lines.push('');
  }
  lines.push(tolerance(c), ...coverageLine(c), summaryLine(c));
  return lines.join('\n');
}

/** The comparison in Markdown (a CI job summary or a pull-request comment). */
export function renderCompareMarkdown(c: Comparison): string {
  const title = { same: '✅ same', better: '✅ better', worse: '❌ worse', mixed: '❌ mixed' }[c.verdict];
  const out = [`## throttlelab: ${title}`, ''];
  for (const s of c.scenarios) {
    out.push(`### ${s.worse ? '❌' : '✅'} ${heading(s).replace(/\|/g, '\\|')}`, '');
    out.push(`| ${HEADER.join(' | ')} |`, `|${HEADER.map(() => '---').join('|')}|`);
    for (const r of rows(s)) out.push(`| ${r.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`);
    out.push('');
  }
  out.push(`_${tolerance(c)}_`, '', ...coverageLine(c).flatMap((l) => [l, '']), summaryLine(c), '');
  return out.join('\n');
}

/** The comparison as a self-contained HTML page. */
export function renderCompareHtml(c: Comparison): string {
  const body = c.scenarios
    .map(
      (s) =>
        `<section><h2 class="${s.worse ? 'fail' : 'pass'}">${esc(heading(s))}</h2><table><tr>${HEADER.map((h) => `<th>${h}</th>`).join('')}</tr>${rows(
          s,
        )
          .map(
            (r) =>
              `<tr${r[5] === 'WORSE' ? ' class="worse"' : ''}>${r.map((cell, i) => `<td${i === 0 ? '' : ''}>${i === 0 ? `<code>${esc(cell)}</code>` : esc(cell)}</td>`).join('')}</tr>`,
          )
          .join('')}</table></section>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>throttlelab: compare</title><style>
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:980px;padding:0 1rem;color:#222;line-height:1.45}
table{border-collapse:collapse;width:100%;margin:.6rem 0}td,th{border-bottom:1px solid #eee;padding:.3rem .5rem;text-align:left}
.pass{color:#1e7a46}.fail{color:#b3261e}tr.worse{background:#fdecea}.muted{color:#666}code{background:#f4f4f4;padding:0 .25rem}
</style></head><body><h1 class="${c.worse ? 'fail' : 'pass'}">${c.verdict[0]!.toUpperCase()}${c.verdict.slice(1)}</h1>
<p class="muted">${esc(tolerance(c))}</p>
${body}
${coverageLine(c)
  .map((l) => `<p>${esc(l)}</p>`)
  .join('')}<p>${esc(summaryLine(c))}</p></body></html>
`;
}
