import { describe, expect, it } from 'vitest';
import { patchFault } from './patch-fault.js';
import { FaultSchema } from './scenario/schema.js';

const spec = FaultSchema.parse({ id: 'storm', kind: 'status', status: 429, at: '10s', for: '30s' });
const current = { spec, startAt: 10_000, endAt: 40_000 };

describe('patchFault', () => {
  it('replaces the fields given and keeps the window', () => {
    const p = patchFault(current, { status: 503 }, 20_000);
    expect(p).toMatchObject({ ok: true, spec: { id: 'storm', status: 503, for: 30_000 } });
    expect(p).not.toHaveProperty('window');
  });

  it('re-places the fault from now given at, and changes only its length given for', () => {
    expect(patchFault(current, { at: 0, for: '1m' }, 20_000)).toMatchObject({
      window: { startAt: 20_000, endAt: 80_000 },
    });
    expect(patchFault(current, { for: '5s' }, 20_000)).toMatchObject({ window: { startAt: 10_000, endAt: 15_000 } });
  });

  it('turns a fault on or off', () => {
    expect(patchFault(current, { enabled: false }, 0)).toMatchObject({ ok: true, enabled: false, spec });
  });

  it('refuses what the scenario schema refuses, a new id, and an enabled that is no boolean', () => {
    expect(patchFault(current, { status: 200 }, 0)).toEqual({
      ok: false,
      issues: ['status: Too small: expected number to be >=400'],
    });
    expect(patchFault(current, { colour: 'red' }, 0)).toMatchObject({
      ok: false,
      issues: [expect.stringMatching(/colour/)],
    });
    expect(patchFault(current, { id: 'other' }, 0)).toMatchObject({
      ok: false,
      issues: [expect.stringMatching(/^id:/)],
    });
    expect(patchFault(current, { enabled: 'no' }, 0)).toEqual({
      ok: false,
      issues: ['enabled: expected true or false'],
    });
    expect(patchFault(current, [1], 0)).toMatchObject({ ok: false });
  });
});
