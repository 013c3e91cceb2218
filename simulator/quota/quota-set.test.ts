import { describe, expect, it } from 'vitest';
import { QuotaSet, type Costs, type QuotaRule } from './quota-set.js';

const rule = (over: Partial<QuotaRule>): QuotaRule => ({
  id: 'r',
  metric: 'requests',
  limit: 10,
  windowMs: 60_000,
  algorithm: 'token-bucket',
  scope: 'org',
  sharedModels: false,
  ...over,
});
const cost = (over: Partial<Costs> = {}): Costs => ({
  requests: 1,
  tokens: 0,
  'input-tokens': 0,
  'output-tokens': 0,
  concurrency: 1,
  ...over,
});
const alice = { keyId: 'a', org: 'acme' };
const bob = { keyId: 'b', org: 'acme' };
const carol = { keyId: 'c', org: 'other' };

describe('QuotaSet', () => {
  it('says how long it would refuse the same request again once one is admitted', () => {
    const q = new QuotaSet([
      rule({ limit: 2, windowMs: 60_000 }),
      rule({ id: 'c', metric: 'concurrency', limit: 1, windowMs: 0 }),
    ]);
    const first = q.admit(alice, 'm', cost(), 0);
    expect(first.ok && q.waitFor(first.ticket.buckets, cost(), 0)).toBe(0);
    const second = q.admit(alice, 'm', cost({ concurrency: 0 }), 0);
    // The bucket is empty: one request refills in 30 s; concurrency, freed by completions, is left out.
    expect(second.ok && q.waitFor(second.ticket.buckets, cost(), 0)).toBe(30_000);
  });

  it('never overshoots a limit however many requests arrive at once', () => {
    const q = new QuotaSet([rule({ limit: 50 })]);
    let admitted = 0;
    for (let i = 0; i < 500; i++) if (q.admit(alice, 'm', cost(), 0).ok) admitted++;
    expect(admitted).toBe(50);
  });

  it('admits all-or-nothing across limits', () => {
    const q = new QuotaSet([rule({ id: 'req', limit: 10 }), rule({ id: 'tok', metric: 'tokens', limit: 100 })]);
    expect(q.admit(alice, 'm', cost({ tokens: 80 }), 0).ok).toBe(true);
    const refused = q.admit(alice, 'm', cost({ tokens: 30 }), 0);
    expect(refused.ok).toBe(false);
    // The request unit was not taken by the refused request.
    expect(q.view(q.bucketsFor(alice, 'm', 0), 0).map((v) => v.remaining)).toEqual([9, 20]);
  });

  it('names the binding limit and its wait', () => {
    const q = new QuotaSet([rule({ id: 'tok', metric: 'tokens', limit: 600 })]);
    q.admit(alice, 'm', cost({ tokens: 600 }), 0);
    const r = q.admit(alice, 'm', cost({ tokens: 100 }), 0);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.violation).toMatchObject({ requested: 100, used: 600, tooLarge: false, waitMs: 10_000 });
  });

  it('flags a request that can never fit', () => {
    const q = new QuotaSet([rule({ metric: 'tokens', limit: 100 })]);
    const r = q.admit(alice, 'm', cost({ tokens: 101 }), 0);
    expect(!r.ok && r.violation.tooLarge).toBe(true);
  });

  it('shares org buckets between keys and keeps orgs apart', () => {
    const q = new QuotaSet([rule({ limit: 2 })]);
    expect(q.admit(alice, 'm', cost(), 0).ok).toBe(true);
    expect(q.admit(bob, 'm', cost(), 0).ok).toBe(true);
    expect(q.admit(alice, 'm', cost(), 0).ok).toBe(false);
    expect(q.admit(carol, 'm', cost(), 0).ok).toBe(true);
  });

  it('keeps per-key buckets apart within an org given scope key', () => {
    const q = new QuotaSet([rule({ limit: 1, scope: 'key' })]);
    expect(q.admit(alice, 'm', cost(), 0).ok).toBe(true);
    expect(q.admit(bob, 'm', cost(), 0).ok).toBe(true);
  });

  it('counts each model separately unless shared', () => {
    const perModel = new QuotaSet([rule({ limit: 1 })]);
    expect(perModel.admit(alice, 'x', cost(), 0).ok).toBe(true);
    expect(perModel.admit(alice, 'y', cost(), 0).ok).toBe(true);
    const shared = new QuotaSet([rule({ limit: 1, sharedModels: true })]);
    expect(shared.admit(alice, 'x', cost(), 0).ok).toBe(true);
    expect(shared.admit(alice, 'y', cost(), 0).ok).toBe(false);
  });

  it('holds a concurrency slot until settled', () => {
    const q = new QuotaSet([rule({ metric: 'concurrency', limit: 1, windowMs: 0 })]);
    const first = q.admit(alice, 'm', cost(), 0);
    const second = q.admit(alice, 'm', cost(), 0);
    expect(first.ok).toBe(true);
    expect(!second.ok && Number.isNaN(second.violation.waitMs)).toBe(true);
    if (first.ok) q.settle(first.ticket, { concurrency: -1 }, 5);
    expect(q.admit(alice, 'm', cost(), 5).ok).toBe(true);
  });

  it('refuses new work while output tokens are in debt', () => {
    const q = new QuotaSet([rule({ metric: 'output-tokens', limit: 100 })]);
    const first = q.admit(alice, 'm', cost(), 0);
    if (first.ok) q.settle(first.ticket, { 'output-tokens': 150 }, 0);
    const next = q.admit(alice, 'm', cost(), 0);
    expect(next.ok).toBe(false);
    if (!next.ok) expect(next.violation.waitMs).toBeCloseTo(30_600);
  });

  it('charges refused requests a request unit where the vendor counts them', () => {
    const q = new QuotaSet([rule({ limit: 2 }), rule({ metric: 'tokens', limit: 10 })]);
    const r = q.admit(alice, 'm', cost({ tokens: 50 }), 0);
    expect(r.ok).toBe(false);
    if (!r.ok) q.chargeRejected(r.buckets, 0);
    expect(q.view(q.bucketsFor(alice, 'm', 0), 0).map((v) => v.remaining)).toEqual([1, 10]);
  });
});
