import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { limited, outcome, row, T0 } from '../../test/helpers/evidence.js';
import { CLAUSES, type Clause } from '../spec/clauses.js';
import { clauseVerdicts, forcingScenarios, ledgerLines, type JudgedCheck } from './clause-table.js';

const check = (id: string, verdict: string): JudgedCheck => ({ id, verdict, figure: `${id} figure`, evidence: [] });

describe('forcingScenarios', () => {
  it('reads each clause\'s "Forced by" scenario from docs/spec.md, for every clause of CLAUSES', () => {
    const forced = forcingScenarios(readFileSync('docs/spec.md', 'utf8'));
    for (const c of CLAUSES) expect(forced.get(c.id), c.id).toMatch(/^\d\d-[a-z0-9-]+$/);
  });

  it('stops a clause at the next clause or section', () => {
    const text = [
      '## A',
      '### A-1. One',
      'MUST.',
      '- Forced by: `01-x`',
      '### A-2. Two',
      'MUST.',
      '## B',
      '- Forced by: `02-y`',
    ].join('\n');
    expect([...forcingScenarios(text)]).toEqual([['A-1', '01-x']]);
  });
});

describe('clauseVerdicts', () => {
  const clauses: Clause[] = [
    { id: 'KEY-1', title: 'Keys', level: 'MUST', check: 'key-isolation' },
    { id: 'SIG-1', title: 'Waits', level: 'MUST', check: 'retry-after' },
    { id: 'X-1', title: 'Unforced', level: 'SHOULD', check: 'goodput' },
    { id: 'X-2', title: 'Not judged', level: 'MUST', check: 'usage' },
  ];
  const forced = new Map([
    ['KEY-1', '01-steady-state'],
    ['SIG-1', '02-429-hint-forms'],
    ['X-2', '01-steady-state'],
  ]);
  const results = new Map([
    ['01-steady-state', [[check('key-isolation', 'pass')], [check('key-isolation', 'pass')]]],
    ['02-429-hint-forms', [[check('retry-after', 'fail')], [check('retry-after', 'inconclusive')]]],
  ]);

  it("gives each clause its check's verdict on its forcing scenario in every run", () => {
    const rows = clauseVerdicts(clauses, forced, results);
    expect(rows.map((r) => [r.clause.id, r.scenario, r.verdicts])).toEqual([
      ['KEY-1', '01-steady-state', ['pass', 'pass']],
      ['SIG-1', '02-429-hint-forms', ['fail', 'inconclusive']],
      ['X-1', null, ['not run']],
      ['X-2', '01-steady-state', ['not judged', 'not judged']],
    ]);
    expect(rows[1]!.first?.verdict).toBe('fail');
    expect(rows[3]!.first).toBeUndefined();
  });

  it('says "not run" for a forcing scenario the run did not play (--only)', () => {
    const rows = clauseVerdicts(clauses.slice(0, 1), forced, new Map());
    expect(rows[0]!.verdicts).toEqual(['not run']);
  });
});

describe('ledgerLines', () => {
  it("lists the id's attempts from the client's send and what the client got", () => {
    const rows = [
      limited(100, 2000, { correlationId: 'r-1', faults: ['burst'] }),
      row({ at: 1100, correlationId: 'r-1', provider: 'anthropic', model: 'claude-haiku-4-5', status: 529 }),
      row({ at: 50, correlationId: 'r-2' }),
    ];
    const o = outcome({ id: 'r-1', at: 0, status: 500, error: '500', endAt: T0 + 3000 });
    expect(ledgerLines('r-1', rows, o)).toEqual([
      `ledger #${rows[0]!.seq}: +100 ms openai/gpt-4o-mini key main → 429 rate_limit_exceeded, announced a 2000 ms wait (seconds), fault burst, ended complete`,
      `ledger #${rows[1]!.seq}: +1100 ms anthropic/claude-haiku-4-5 key main → 529, ended complete`,
      'client: 500 (500) after 3000 ms',
    ]);
  });

  it("sets what a 200 attempt produced beside what the client got (a stream's usage and characters)", () => {
    const rows = [row({ at: 20, correlationId: 'r-3', stream: true, tokensIn: 216, tokensOut: 14, contentChars: 129 })];
    const o = outcome({
      id: 'r-3',
      at: 0,
      stream: true,
      streamEnd: 'done',
      usage: { prompt: 0, completion: 0 },
      contentChars: 884,
      endAt: T0 + 900,
    });
    expect(ledgerLines('r-3', rows, o)).toEqual([
      `ledger #${rows[0]!.seq}: +20 ms openai/gpt-4o-mini key main stream → 200, ended complete, 216+14 tokens, 129 chars`,
      'client: 200, stream ended done after 900 ms, usage 0+0, 884 chars',
    ]);
  });

  it('says so when no attempt carries the id', () => {
    expect(ledgerLines('r-9', [row({ correlationId: 'r-1' })], undefined)).toEqual([
      'ledger: no attempt carries this correlation id',
    ]);
  });
});
