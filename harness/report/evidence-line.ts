import type { Report } from './report.js';

/**
 * What raw evidence the run kept beside its report, in one line; none for a report written before
 * `--evidence` (it kept everything, plain).
 */
export function evidenceLine(r: Pick<Report, 'evidence'>): string | undefined {
  const e = r.evidence;
  if (!e) return undefined;
  const files = e.files.join(', ');
  const gzip = e.files.some((f) => f.endsWith('.gz')) ? ' (gzip-compressed JSON lines)' : '';
  if (e.mode === 'none')
    return `evidence: not kept (--evidence none): no ledger or outcomes file; the figures and each check's first violations are in report.json (${e.of.attempts} attempts and ${e.of.outcomes} outcomes not written)`;
  if (e.mode === 'summary')
    return `evidence: summary (--evidence summary): the ${e.attempts} attempts and ${e.outcomes} outcomes of the requests the checks cite, of ${e.of.attempts} and ${e.of.outcomes}, in ${files}${gzip}`;
  return `evidence: every attempt (${e.attempts}) and outcome (${e.outcomes}) in ${files}${gzip}`;
}
