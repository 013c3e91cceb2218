import { describe, expect, it } from 'vitest';
import type { ClientOutcome } from '../harness/index.js';
import type { LedgerRow } from '../simulator/index.js';
import { GZIP_FROM_LINES, planEvidence } from './evidence-plan.js';

const rows = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ seq: i, correlationId: `r-${i % 50}` })) as never as LedgerRow[];
const outcomes = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `r-${i}` })) as never as ClientOutcome[];
const citing = (...ids: string[]) =>
  ({
    checks: [{ evidence: ids.map((correlationId) => ({ correlationId, detail: 'd' })) }],
  }) as never as Parameters<typeof planEvidence>[1];

describe('planEvidence', () => {
  it('keeps every row of a small run plain, and gzips from GZIP_FROM_LINES lines', () => {
    const small = planEvidence('full', citing(), { rows: rows(10), outcomes: outcomes(5) });
    expect(small.kept).toEqual({
      mode: 'full',
      files: ['ledger.jsonl', 'outcomes.jsonl'],
      attempts: 10,
      outcomes: 5,
      of: { attempts: 10, outcomes: 5 },
    });
    expect(
      planEvidence('full', citing(), { rows: rows(GZIP_FROM_LINES - 6), outcomes: outcomes(5) }).kept.files,
    ).toEqual(['ledger.jsonl', 'outcomes.jsonl']);
    expect(
      planEvidence('full', citing(), { rows: rows(GZIP_FROM_LINES - 5), outcomes: outcomes(5) }).kept.files,
    ).toEqual(['ledger.jsonl.gz', 'outcomes.jsonl.gz']);
  });

  it('keeps, in summary, the attempts and outcomes of the requests the checks cite, and nothing with none', () => {
    const data = { rows: rows(200), outcomes: outcomes(60) };
    const summary = planEvidence('summary', citing('r-3', 'r-7', 'r-999'), data);
    expect([...summary.rows].map((r) => r.seq)).toEqual([3, 7, 53, 57, 103, 107, 153, 157]);
    expect([...summary.outcomes].map((o) => o.id)).toEqual(['r-3', 'r-7']);
    expect(summary.kept).toMatchObject({
      mode: 'summary',
      attempts: 8,
      outcomes: 2,
      of: { attempts: 200, outcomes: 60 },
    });
    const none = planEvidence('none', citing('r-3'), data);
    expect(none.kept).toEqual({
      mode: 'none',
      files: [],
      attempts: 0,
      outcomes: 0,
      of: { attempts: 200, outcomes: 60 },
    });
    expect([...none.rows, ...none.outcomes]).toEqual([]);
  });
});
