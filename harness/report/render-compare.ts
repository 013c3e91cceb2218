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

/** The rows of one scenario's comparison: [what, before, after, change, mark]. */
function rows(s: ScenarioChange): string[][] {
  const out: string[][] = [];
  for (const f of s.figures)
    out.push([
      f.name,
      num(f.before, f.unit),
      num(f.after, f.unit),
      delta(f),
      f.informational && (f.before ?? 0) !== (f.after ?? 0) ? '(not gated)' : mark(f.worse, f.better),
    ]);
  for (const c of s.checks) {
    const unit = c.value?.unit ?? '';
    const show = (side: typeof c.before) =>
      side ? `${verdict(side.verdict)}${side.value === null ? '' : ` ${num(side.value, unit)}`}` : '—';
    out.push([
      c.id,
      show(c.before),
      show(c.after),
      c.value ? delta(c.value) : '',
      c.worse
        ? 'WORSE'
        : c.verdictBetter || c.value?.better
          ? 'better'
          : c.value?.informational && c.value.before !== c.value.after
            ? '(not gated)'
            : '',
    ]);
  }
  return out;
}

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

function summaryLine(c: Comparison): string {
  const worse = c.scenarios.filter((s) => s.worse);
  return worse.length === 0
    ? 'compare: nothing got worse'
    : `compare: WORSE in ${worse.length} of ${c.scenarios.length} scenario${c.scenarios.length === 1 ? '' : 's'}: ${worse
        .map(
          (s) =>
            `${s.name} (${[...s.checks.filter((k) => k.worse).map((k) => k.id), ...s.figures.filter((f) => f.worse).map((f) => f.name)].join(', ') || 'verdict'})`,
        )
        .join('; ')}`;
}

/** The comparison as a terminal table, one block per scenario, ending with the gate's line. */
export function renderCompareTable(c: Comparison): string {
  const lines: string[] = [];
  for (const s of c.scenarios) {
    lines.push(`${s.worse ? 'WORSE ' : ''}${heading(s)}`);
    const all = [['', 'before', 'after', 'change', ''], ...rows(s)];
    const widths = all[0]!.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
    for (const r of all) lines.push(`  ${r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')}`.trimEnd());
    lines.push('');
  }
  lines.push(tolerance(c), summaryLine(c));
  return lines.join('\n');
}

/** The comparison in Markdown (a CI job summary or a pull-request comment). */
export function renderCompareMarkdown(c: Comparison): string {
  const out = [`## throttlelab: ${c.worse ? '❌ worse' : '✅ nothing got worse'}`, ''];
  for (const s of c.scenarios) {
    out.push(`### ${s.worse ? '❌' : '✅'} ${heading(s).replace(/\|/g, '\\|')}`, '');
    out.push('| | before | after | change | |', '|---|---|---|---|---|');
    for (const r of rows(s)) out.push(`| ${r.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`);
    out.push('');
  }
  out.push(`_${tolerance(c)}_`, '', summaryLine(c), '');
  return out.join('\n');
}

/** The comparison as a self-contained HTML page. */
export function renderCompareHtml(c: Comparison): string {
  const body = c.scenarios
    .map(
      (s) =>
        `<section><h2 class="${s.worse ? 'fail' : 'pass'}">${esc(heading(s))}</h2><table><tr><th></th><th>before</th><th>after</th><th>change</th><th></th></tr>${rows(
          s,
        )
          .map(
            (r) =>
              `<tr${r[4] === 'WORSE' ? ' class="worse"' : ''}>${r.map((cell, i) => `<td${i === 0 ? '' : ''}>${i === 0 ? `<code>${esc(cell)}</code>` : esc(cell)}</td>`).join('')}</tr>`,
          )
          .join('')}</table></section>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>throttlelab: compare</title><style>
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:980px;padding:0 1rem;color:#222;line-height:1.45}
table{border-collapse:collapse;width:100%;margin:.6rem 0}td,th{border-bottom:1px solid #eee;padding:.3rem .5rem;text-align:left}
.pass{color:#1e7a46}.fail{color:#b3261e}tr.worse{background:#fdecea}.muted{color:#666}code{background:#f4f4f4;padding:0 .25rem}
</style></head><body><h1 class="${c.worse ? 'fail' : 'pass'}">${c.worse ? 'Worse' : 'Nothing got worse'}</h1>
<p class="muted">${esc(tolerance(c))}</p>
${body}
<p>${esc(summaryLine(c))}</p></body></html>
`;
}
