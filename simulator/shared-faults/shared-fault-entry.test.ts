import { describe, expect, it } from 'vitest';
import { FaultSchema, MAX_SPAN_MS } from '../scenario/schema.js';
import { formatSharedFaultEntry, parseSharedFaultEntry } from './shared-fault-entry.js';

const NOW = 1_700_000_000_000;
const spec = FaultSchema.parse({ id: 'storm', kind: 'status', status: 429, for: '30s' });

describe('parseSharedFaultEntry', () => {
  it('reads back what formatSharedFaultEntry wrote', () => {
    const entry = { spec, enabled: false, startAt: NOW + 5 };
    expect(parseSharedFaultEntry('storm', formatSharedFaultEntry(entry), NOW)).toEqual({ ok: true, entry });
    expect(parseSharedFaultEntry('storm', formatSharedFaultEntry({ removed: true }), NOW)).toEqual({
      ok: true,
      entry: { removed: true },
    });
  });

  it('clamps a start outside the timeline to its bounds', () => {
    const far = parseSharedFaultEntry('storm', JSON.stringify({ spec, enabled: true, startAt: 1e300 }), NOW);
    expect(far).toMatchObject({ ok: true, entry: { startAt: NOW + MAX_SPAN_MS } });
  });

  it.each([
    ['not JSON', '{', 'not JSON'],
    ['an array', '[]', 'not an object'],
    [
      'a spec the control API refuses',
      JSON.stringify({ spec: { ...spec, status: 999 }, enabled: true, startAt: NOW }),
      'status:',
    ],
    [
      'another id than its field',
      JSON.stringify({ spec: { ...spec, id: 'calm' }, enabled: true, startAt: NOW }),
      'spec.id: expected "storm"',
    ],
    ['enabled not a boolean', JSON.stringify({ spec, enabled: 'yes', startAt: NOW }), 'enabled:'],
    ['no start', JSON.stringify({ spec, enabled: true, startAt: null }), 'startAt:'],
    [
      'too long',
      JSON.stringify({ spec: { ...spec, message: 'x'.repeat(70_000) }, enabled: true, startAt: NOW }),
      'over 65536 characters',
    ],
  ])('refuses an entry that is %s', (_what, text, reason) => {
    const parsed = parseSharedFaultEntry('storm', text, NOW);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.reason).toContain(reason);
  });
});
