import { describe, expect, it } from 'vitest';
import { LedgerStreamTally } from './stream-tally.js';

describe('LedgerStreamTally', () => {
  it('finds nothing missing when every batch arrives once and each worker ends with its count', () => {
    const t = new LedgerStreamTally();
    t.hello('j-a');
    expect(t.accept('j-a', 1, 3)).toBe(0);
    expect(t.accept('f1', 1, 2)).toBe(0);
    expect(t.accept('j-a', 4, 1)).toBe(0);
    t.end('j-a', 4);
    t.end('f1', 2);
    expect(t.allEnded()).toBe(true);
    expect(t.shortfalls()).toEqual([]);
    expect(t.tallies()).toEqual([
      { worker: 'j-a', received: 4, total: 4 },
      { worker: 'f1', received: 2, total: 2 },
    ]);
  });

  it('skips the rows of a batch sent twice, whole or in part', () => {
    const t = new LedgerStreamTally();
    expect(t.accept('w', 1, 3)).toBe(0);
    expect(t.accept('w', 1, 3)).toBe(3);
    expect(t.accept('w', 3, 2)).toBe(1);
    t.end('w', 4);
    expect(t.tallies()).toEqual([{ worker: 'w', received: 4, total: 4 }]);
    expect(t.shortfalls()).toEqual([]);
  });

  it('counts the rows of skipped numbers as missing (trimmed before they were read)', () => {
    const t = new LedgerStreamTally();
    t.accept('w', 1, 2);
    t.accept('w', 6, 2);
    t.end('w', 7);
    expect(t.shortfalls()).toEqual([{ worker: 'w', received: 4, total: 7, missing: 3 }]);
  });

  it("counts the rows after the last batch as missing when the worker's count is higher", () => {
    const t = new LedgerStreamTally();
    t.accept('w', 1, 2);
    t.end('w', 5);
    expect(t.shortfalls()).toEqual([{ worker: 'w', received: 2, total: 5, missing: 3 }]);
  });

  it('reports a worker that said hello and never said it stopped', () => {
    const t = new LedgerStreamTally();
    t.hello('j-gone');
    t.accept('j-gone', 1, 2);
    expect(t.allEnded()).toBe(false);
    expect(t.shortfalls()).toEqual([{ worker: 'j-gone', received: 2, missing: 0 }]);
  });

  it('counts refused rows as missing, and does not await them again when their batch repeats', () => {
    const t = new LedgerStreamTally();
    expect(t.accept('w', 1, 3)).toBe(0);
    t.refuse('w', 1);
    expect(t.accept('w', 1, 3)).toBe(3);
    t.end('w', 3);
    expect(t.shortfalls()).toEqual([{ worker: 'w', received: 2, total: 3, missing: 1, refused: 1 }]);
  });
});
