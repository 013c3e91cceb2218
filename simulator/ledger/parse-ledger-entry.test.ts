import { describe, expect, it } from 'vitest';
import type { LedgerRow } from './ledger-row.js';
import { isGroupWorker, parseLedgerEntry } from './parse-ledger-entry.js';
import { parseLedgerRow } from './parse-ledger-row.js';

const bounds = { notBefore: 1_000, notAfter: 10_000 };
const row: LedgerRow = {
  seq: 3,
  arrivalAt: 2_000.5,
  firstByteAt: 2_001,
  endAt: 2_050,
  provider: 'openai',
  vendor: 'openai',
  key: 'a',
  model: 'gpt-4o-mini',
  endpoint: 'chat',
  correlationId: null,
  sdkRetryCount: null,
  stream: false,
  status: 429,
  errorType: 'rate_limit_exceeded',
  hintMs: 1_000,
  hintForm: 'seconds',
  scope: 'key',
  quota: { requestsBefore: 0, requestsAfter: 0, tokensBefore: null, tokensAfter: null, emptyForMs: null },
  tokensIn: 12,
  tokensOut: 0,
  faults: [],
  contentDigest: null,
  contentChars: null,
  carried: [],
  end: 'complete',
  degraded: true,
};
const line = (patch: Record<string, unknown>) => JSON.stringify({ ...row, ...patch });
const reason = (text: string) => {
  const parsed = parseLedgerRow(text, bounds);
  return parsed.ok ? 'ok' : parsed.reason;
};

describe('parseLedgerRow', () => {
  it('reads back a row as it was written', () => {
    expect(parseLedgerRow(JSON.stringify(row), bounds)).toEqual({ ok: true, row });
  });

  it.each([
    ['not JSON', 'NaN', 'not JSON'],
    ['a huge number', line({ tokensOut: 1e300 }), 'tokensOut: Too big: expected int to be <=9007199254740991'],
    ['a wrong type', line({ status: '200' }), 'status: Invalid input: expected number, received string'],
    ['a status past the column', line({ status: 65_736 }), 'status: Too big: expected number to be <=999'],
    ['a token count past the column', line({ tokensIn: 5e9 }), 'tokensIn: Too big: expected number to be <=4294967295'],
    [
      'a null where a number is due',
      line({ tokensOut: null }),
      'tokensOut: Invalid input: expected number, received null',
    ],
    [
      'an unknown ending',
      line({ end: 'exploded' }),
      'end: Invalid option: expected one of "complete"|"error-event"|"truncated"|"reset"|"client-abort"|"malformed"|"pending"|"shutdown"',
    ],
    [
      'an oversized label',
      line({ provider: 'x'.repeat(300) }),
      'provider: Too big: expected string to have <=256 characters',
    ],
    ['an oversized line', line({ request: 'x'.repeat(200_000) }), 'a line of 200545 characters'],
    [
      'an arrival after the run',
      line({ arrivalAt: 1e300, firstByteAt: null, endAt: null }),
      'arrivalAt: outside the run',
    ],
    ['an end before the arrival', line({ endAt: 1_500 }), 'endAt: before its arrival or outside the run'],
    [
      'a missing field',
      JSON.stringify({ ...row, key: undefined }),
      'key: Invalid input: expected string, received undefined',
    ],
  ])('refuses %s', (_, text, why) => {
    expect(reason(text)).toBe(why);
  });
});

describe('parseLedgerEntry', () => {
  const isWorker = (id: string) => isGroupWorker(id, 2);
  const parse = (...fields: string[]) => parseLedgerEntry(fields, { isWorker, bounds });

  it('names the forked and joined workers of a group, and no one else', () => {
    expect(['w0', 'w1', 'w2', 'w3', 'j-0a1b2c3d', 'j-xyz', 'primary', ''].map(isWorker)).toEqual([
      false,
      true,
      true,
      false,
      true,
      false,
      false,
      false,
    ]);
  });

  it('keeps the good rows of a batch and marks the refused ones in place', () => {
    const good = JSON.stringify(row);
    expect(parse('w', 'w1', 'n', '7', 'rows', [good, 'NaN', good].join('\n'))).toEqual({
      worker: 'w1',
      kind: 'rows',
      first: 7,
      rows: [row, undefined, row],
      refused: ['not JSON'],
    });
  });

  it.each([
    ['an unknown worker', ['w', 'evil', 'n', '1', 'rows', JSON.stringify(row)], 'not a worker of this group'],
    ['a huge row number', ['w', 'w1', 'n', '1e300', 'rows', JSON.stringify(row)], 'a batch without a row number'],
    ['a NaN row number', ['w', 'w1', 'n', 'NaN', 'rows', JSON.stringify(row)], 'a batch without a row number'],
    ['a batch with nothing usable', ['w', 'w1', 'n', '1', 'rows', 'NaN\n{}'], 'not JSON'],
    ['a closing count that is not one', ['w', 'w1', 'end', '-3'], 'a closing count that is not a count'],
    ['an entry of no known kind', ['w', 'w1', 'x', '1'], 'neither rows nor a greeting nor a closing count'],
  ])('refuses whole %s', (_, fields, why) => {
    expect(parse(...fields)).toMatchObject({ kind: 'refused', reason: why });
  });

  it("passes over the primary's opening entry", () => {
    expect(parse('w', 'primary', 'hello', '1')).toBeUndefined();
  });
});
