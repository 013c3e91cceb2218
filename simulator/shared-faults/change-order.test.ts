import { describe, expect, it } from 'vitest';
import { ChangeOrder } from './change-order.js';

const at = (seq: number) => ({ seq, change: `c${seq}` });

describe('ChangeOrder', () => {
  it('holds changes heard during the first read and applies only those after it, in order', () => {
    const order = new ChangeOrder<string>();
    expect(order.heard(at(4))).toEqual({ apply: [], read: false });
    expect(order.heard(at(3))).toEqual({ apply: [], read: false });
    expect(order.heard(at(2))).toEqual({ apply: [], read: false });
    expect(order.read(2)).toEqual({ apply: ['c3', 'c4'], read: false });
    expect(order.seq).toBe(4);
  });

  it('applies the next change at once and ignores one applied already', () => {
    const order = new ChangeOrder<string>();
    order.read(7);
    expect(order.heard(at(8))).toEqual({ apply: ['c8'], read: false });
    expect(order.heard(at(8))).toEqual({ apply: [], read: false });
    expect(order.heard(at(5))).toEqual({ apply: [], read: false });
  });

  it('reads the hash again given a gap, holding what comes meanwhile', () => {
    const order = new ChangeOrder<string>();
    order.read(1);
    expect(order.heard(at(3))).toEqual({ apply: [], read: true });
    expect(order.heard(at(4))).toEqual({ apply: [], read: false });
    expect(order.read(3)).toEqual({ apply: ['c4'], read: false });
  });

  it('reads again when the held changes skip a number after a read', () => {
    const order = new ChangeOrder<string>();
    order.heard(at(5));
    expect(order.read(3)).toEqual({ apply: [], read: true });
    expect(order.read(5)).toEqual({ apply: [], read: false });
    expect(order.seq).toBe(5);
  });

  it('asks for one read at a time', () => {
    const order = new ChangeOrder<string>();
    order.read(0);
    expect(order.reread()).toEqual({ apply: [], read: true });
    expect(order.reread()).toEqual({ apply: [], read: false });
  });

  it('follows a Redis restarted empty, whose numbers start again from 1', () => {
    const order = new ChangeOrder<string>();
    order.read(9);
    order.reread();
    expect(order.read(0)).toEqual({ apply: [], read: false });
    expect(order.heard(at(1))).toEqual({ apply: ['c1'], read: false });
  });
});
