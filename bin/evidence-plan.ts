import type { ClientOutcome, EvidenceKept, Report } from '../harness/index.js';
import type { LedgerRow } from '../simulator/index.js';

/** `--evidence`: every row (full), the rows of the requests the report cites (summary), or none. */
export type EvidenceMode = 'full' | 'summary' | 'none';

/**
 * From this many lines (attempts and outcomes together) the evidence is written gzip-compressed
 * (`ledger.jsonl.gz`, `outcomes.jsonl.gz`): about 45 MB of JSONL. The conformance pack's runs stay
 * below it, plain and readable with `grep`; a day of simulated traffic (1.9 million lines, 940 MB)
 * goes well above it.
 */
export const GZIP_FROM_LINES = 100_000;

/** The evidence a run keeps: the rows and outcomes to write, and under which names. */
export interface EvidencePlan {
  kept: EvidenceKept;
  rows: Iterable<LedgerRow>;
  outcomes: Iterable<ClientOutcome>;
}

/** Every correlation id the report's checks cite as evidence (at most 20 per check). */
export function citedIds(reports: readonly Pick<Report, 'checks'>[]): Set<string> {
  const ids = new Set<string>();
  for (const r of reports)
    for (const c of r.checks) for (const e of c.evidence) if (e.correlationId) ids.add(e.correlationId);
  return ids;
}

/**
 * Decides what evidence a run keeps. `full`: every attempt and outcome, gzip-compressed from
 * `GZIP_FROM_LINES` lines. `summary`: the attempts and outcomes of the requests the report cites
 * (each check's first violations), so every id in the report can still be followed through the
 * ledger; the figures themselves are in `report.json`. `none`: no JSONL, and the report says so.
 */
export function planEvidence(
  mode: EvidenceMode,
  report: Pick<Report, 'checks'>,
  data: { rows: readonly LedgerRow[]; outcomes: readonly ClientOutcome[] },
): EvidencePlan {
  if (mode === 'none')
    return {
      kept: {
        mode,
        files: [],
        attempts: 0,
        outcomes: 0,
        of: { attempts: data.rows.length, outcomes: data.outcomes.length },
      },
      rows: [],
      outcomes: [],
    };
  const ids = mode === 'summary' ? citedIds([report]) : undefined;
  const rows = ids ? data.rows.filter((r) => r.correlationId !== null && ids.has(r.correlationId)) : data.rows;
  const outcomes = ids ? data.outcomes.filter((o) => ids.has(o.id)) : data.outcomes;
  const gzip = rows.length + outcomes.length >= GZIP_FROM_LINES;
  const ext = gzip ? '.jsonl.gz' : '.jsonl';
  return {
    kept: {
      mode,
      files: [`ledger${ext}`, `outcomes${ext}`],
      attempts: rows.length,
      outcomes: outcomes.length,
      of: { attempts: data.rows.length, outcomes: data.outcomes.length },
    },
    rows,
    outcomes,
  };
}
