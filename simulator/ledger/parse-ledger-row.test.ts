import { describe, expect, it } from 'vitest';
import { bounds, row } from '../../test/helpers/ledger-row-fixture.js';
import { parseLedgerRow } from './parse-ledger-row.js';

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
