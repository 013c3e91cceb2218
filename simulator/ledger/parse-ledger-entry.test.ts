import { describe, expect, it } from 'vitest';
import { bounds, row } from '../../test/helpers/ledger-row-fixture.js';
import { isGroupWorker, parseLedgerEntry } from './parse-ledger-entry.js';

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
