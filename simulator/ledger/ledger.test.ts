import { describe, expect, it } from 'vitest';
import { Ledger, type AttemptPlan, type AttemptStart } from './ledger.js';
import type { LedgerRow } from './ledger-row.js';

const start = (over: Partial<AttemptStart> = {}): AttemptStart => ({
  arrivalAt: 1000.25,
  provider: 'openai',
  vendor: 'openai',
  key: 'main',
  endpoint: 'chat',
  model: 'gpt-4o',
  correlationId: 'c-1',
  sdkRetryCount: null,
  stream: false,
  ...over,
});
const plan = (over: Partial<AttemptPlan> = {}): AttemptPlan => ({
  status: 200,
  errorType: null,
  hintMs: null,
  hintForm: null,
  requestsBefore: 10,
  requestsAfter: 9,
  tokensBefore: Number.NaN,
  tokensAfter: Number.NaN,
  emptyForMs: Number.NaN,
  tokensIn: 12,
  tokensOut: 30,
  faults: [],
  end: 'complete',
  ...over,
});

describe('Ledger', () => {
  it("gives back every correlation id as it came, those in the run's form kept as numbers", () => {
    const ledger = new Ledger({ initialCapacity: 2 });
    const ids = ['r1a-7', 'r1a-123456789012345', 'r1a-007', 'other-3', '42', 'r1a-', 'r1a-1e3', null, 'r1a-0'];
    for (const id of ids) ledger.finish(ledger.begin(start({ correlationId: id })), 2000, undefined, undefined);
    expect([...ledger.rowsIterator()].map((r) => r.correlationId)).toEqual(ids);
    expect(ledger.rowViews().map((r) => r.correlationId)).toEqual(ids);
    expect(ledger.query({ correlationId: 'r1a-007' }).rows.map((r) => r.seq)).toEqual([2]);
  });

  it('gives views that read every field as the row objects do, and serialise to the same JSON', () => {
    const ledger = new Ledger({ initialCapacity: 2 });
    const a = ledger.begin(start({ stream: true, sdkRetryCount: 2, carried: ['header:x-api-key=foreign:groq/main'] }));
    ledger.plan(
      a,
      plan({
        status: 429,
        errorType: 'rate_limit_error',
        hintMs: 1500,
        hintForm: 'seconds',
        faults: ['a', 'b'],
        contentDigest: 0x1f2e3d4c5b6a7,
        contentChars: 42,
        cacheRead: 5,
      }),
    );
    ledger.firstByteAt(a, 1001);
    ledger.finish(a, 1002.5, 'complete', 7);
    const b = ledger.begin(start({ model: null, correlationId: null, endpoint: 'embeddings' }));
    ledger.plan(b, plan({ requestsAfter: 0, emptyForMs: 2000, cacheWrite: 9 }));
    ledger.finish(b, 1003, 'reset', 0);
    // Past the initial capacity: the columns grow under the views.
    for (let i = 0; i < 5; i++) ledger.begin(start({ correlationId: `c-${i + 2}` }));
    const rows = [...ledger.rowsIterator()];
    const views = ledger.rowViews();
    expect(views).toHaveLength(7);
    expect(JSON.stringify(views)).toBe(JSON.stringify(rows));
    for (const [i, row] of rows.entries())
      for (const k of Object.keys(row) as Array<keyof LedgerRow>) expect(views[i]![k], `${i} ${k}`).toEqual(row[k]);
    expect(views[0]!.cacheWrite).toBeUndefined();
    expect(views[1]!.faults).toEqual([]);
    expect(() => views[1]!.faults.push('x')).toThrow();
  });

  it('keeps the scope of a refusal that announced a wait, and none on an answer without one', () => {
    const ledger = new Ledger({ maxRows: 4 });
    const plans: AttemptPlan[] = [
      plan({ status: 429, hintMs: 400, hintForm: 'ms', scope: 'org', org: 'org-a' }),
      plan({ status: 429, hintMs: 400, hintForm: 'ms', scope: 'key', org: 'org-a' }),
      plan({ status: 429, hintMs: Number.NaN, hintForm: 'seconds', scope: 'provider', org: 'org-a' }),
      plan({ status: 429, scope: 'org', org: 'org-a' }),
      // Past maxRows: the row spilled to the sinks says the same.
      plan({ status: 429, hintMs: 400, hintForm: 'ms', scope: 'org', org: 'org-b' }),
    ];
    const sunk: LedgerRow[] = [];
    ledger.addSink((r) => sunk.push(r));
    for (const p of plans) {
      const seq = ledger.begin(start());
      ledger.plan(seq, p);
      ledger.finish(seq, 2000, undefined, undefined);
    }
    const said = (r: LedgerRow) => [r.scope, r.org];
    const expected = [
      ['org', 'org-a'],
      ['key', undefined],
      ['provider', undefined],
      [undefined, undefined],
      ['org', 'org-b'],
    ];
    expect(sunk.map(said)).toEqual(expected);
    expect(ledger.rowViews().map(said)).toEqual(expected.slice(0, 4));
    expect(sunk[2]!.hintForm).toBe('garbage');
    expect(JSON.stringify(ledger.rowViews()[0])).toContain('"scope":"org","org":"org-a"');
  });

  it('keeps every field of a row through its columns', () => {
    const ledger = new Ledger();
    const seq = ledger.begin(
      start({ stream: true, sdkRetryCount: 2, carried: ['header:x-api-key=foreign:groq/main'] }),
    );
    ledger.plan(
      seq,
      plan({
        status: 429,
        errorType: 'rate_limit_error',
        hintMs: 1500,
        hintForm: 'seconds',
        faults: ['a', 'b'],
        end: 'pending',
        contentDigest: 0x1f2e3d4c5b6a7,
        contentChars: 42,
      }),
    );
    ledger.firstByteAt(seq, 1001);
    ledger.finish(seq, 1002.5, 'client-abort', 7);
    expect(ledger.row(seq)).toEqual<LedgerRow>({
      seq: 0,
      arrivalAt: 1000.25,
      firstByteAt: 1001,
      endAt: 1002.5,
      provider: 'openai',
      vendor: 'openai',
      key: 'main',
      model: 'gpt-4o',
      endpoint: 'chat',
      correlationId: 'c-1',
      sdkRetryCount: 2,
      stream: true,
      status: 429,
      errorType: 'rate_limit_error',
      hintMs: 1500,
      hintForm: 'seconds',
      quota: { requestsBefore: 10, requestsAfter: 9, tokensBefore: null, tokensAfter: null, emptyForMs: null },
      tokensIn: 12,
      tokensOut: 7,
      faults: ['a', 'b'],
      end: 'client-abort',
      contentDigest: '01f2e3d4c5b6a7',
      contentChars: 42,
      carried: ['header:x-api-key=foreign:groq/main'],
    });
  });

  it('records an unparseable hint as garbage', () => {
    const ledger = new Ledger();
    const seq = ledger.begin(start());
    ledger.plan(seq, plan({ hintMs: Number.NaN, hintForm: 'seconds' }));
    expect(ledger.row(seq)).toMatchObject({ hintMs: null, hintForm: 'garbage' });
  });

  it('grows past its initial capacity and filters queries', () => {
    const ledger = new Ledger({ initialCapacity: 4 });
    for (let i = 0; i < 100; i++) {
      const seq = ledger.begin(start({ arrivalAt: i, provider: i % 2 ? 'a' : 'b', correlationId: `c${i}` }));
      ledger.plan(seq, plan({ status: i % 5 === 0 ? 429 : 200 }));
    }
    expect(ledger.query({ provider: 'a' }).total).toBe(50);
    expect(ledger.query({ provider: 'b', status: 429 }).total).toBe(10);
    expect(ledger.query({ since: 10, until: 20 }).rows.map((r) => r.seq)).toEqual([
      10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
    ]);
    expect(ledger.query({ correlationId: 'c42' }).rows[0]!.seq).toBe(42);
    expect(ledger.query({ offset: 95, limit: 2 }).rows.map((r) => r.seq)).toEqual([95, 96]);
  });

  it('streams rows past maxRows to its sinks without keeping them', () => {
    const ledger = new Ledger({ maxRows: 2 });
    const sunk: LedgerRow[] = [];
    ledger.addSink((row) => sunk.push(row));
    for (let i = 0; i < 5; i++) {
      const seq = ledger.begin(start({ arrivalAt: i }));
      ledger.plan(seq, plan());
      ledger.finish(seq, i + 0.5, undefined, undefined);
    }
    expect(ledger.size).toBe(5);
    expect(ledger.dropped).toBe(3);
    expect([...ledger.rowsIterator()].map((r) => r.seq)).toEqual([0, 1]);
    expect(sunk.map((r) => [r.seq, r.endAt, r.status])).toEqual([
      [0, 0.5, 200],
      [1, 1.5, 200],
      [2, 2.5, 200],
      [3, 3.5, 200],
      [4, 4.5, 200],
    ]);
  });

  it('keeps the file sink however often an event client leaves, and whichever sink leaves mid-row', () => {
    const ledger = new Ledger();
    const file: number[] = [];
    const events: number[] = [];
    ledger.addSink((row) => file.push(row.seq));
    const leave = ledger.addSink((row) => {
      events.push(row.seq);
      leave();
    });
    const end = () => ledger.finish(ledger.begin(start()), 2000, undefined, undefined);
    end();
    // Both the request and the response of an event stream close: it leaves twice.
    leave();
    end();
    const late: number[] = [];
    ledger.addSink((row) => late.push(row.seq));
    end();
    expect(file).toEqual([0, 1, 2]);
    expect(events).toEqual([0]);
    expect(late).toEqual([2]);
  });

  it('hands a row to every sink when one before them throws, then throws', () => {
    const ledger = new Ledger();
    const file: number[] = [];
    ledger.addSink(() => {
      throw new Error('client gone');
    });
    ledger.addSink((row) => file.push(row.seq));
    expect(() => ledger.finish(ledger.begin(start()), 2000, undefined, undefined)).toThrow('client gone');
    expect(file).toEqual([0]);
  });
});
