import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  attemptFeed,
  backlogPages,
  DASHBOARD_LOGIC,
  faultRequest,
  faultRowIds,
  faultView,
  type FaultForm,
  type PageAttempt,
  type PageFault,
} from './dashboard-logic.js';

const row = (seq: number, arrivalS: number, endAt: number | null = 1) => ({
  seq,
  arrivalAt: 1_000_000 + arrivalS * 1000,
  endAt,
  provider: 'openai',
  status: 200,
  hintMs: null,
  key: 'main',
  model: 'gpt-4o-mini',
});
const attempt = (seq: number, s: number): PageAttempt => [s, 'openai', 200, null, 'main', 'gpt-4o-mini', seq];
const seqs = (attempts: PageAttempt[]) => attempts.map((a) => a[6]);

describe('attemptFeed', () => {
  it('draws the ledger read at open and every tick after it, each attempt once, in time order', () => {
    const feed = attemptFeed();
    // Ticks before the ledger answers are held back; seq 3 ended after the hello, before the read.
    expect(feed.stream([attempt(3, 3), attempt(4, 4)])).toEqual([]);
    const first = feed.backlog([row(0, 0), row(1, 1), row(2, 2, null), row(3, 3)], 1_000_000);
    expect(seqs(first)).toEqual([0, 1, 3, 4]);
    expect(first[1]).toEqual([1, 'openai', 200, null, 'main', 'gpt-4o-mini', 1]);
    // Seq 2 was open at the read: it comes in a tick. Seq 1 in a late tick is a duplicate.
    expect(seqs(feed.stream([attempt(2, 2), attempt(1, 1), attempt(5, 5)]))).toEqual([2, 5]);
  });

  it('releases the held ticks when the ledger cannot be read', () => {
    const feed = attemptFeed();
    feed.stream([attempt(7, 1)]);
    expect(seqs(feed.backlog([], 0))).toEqual([7]);
    expect(seqs(feed.stream([attempt(8, 2)]))).toEqual([8]);
  });
});

describe('backlogPages', () => {
  it('reads the last rows of the ledger, a page at a time', () => {
    expect(backlogPages(0, 20_000, 10_000)).toEqual([]);
    expect(backlogPages(15, 20_000, 10_000)).toEqual([{ offset: 0, limit: 15 }]);
    expect(backlogPages(25_005, 20_000, 10_000)).toEqual([
      { offset: 5005, limit: 10_000 },
      { offset: 15_005, limit: 10_000 },
    ]);
  });
});

const fault = (over: Partial<PageFault>): PageFault => ({
  id: 'storm',
  kind: 'status',
  origin: 'live',
  startAt: 10,
  endAt: 40,
  active: true,
  enabled: true,
  applied: 3,
  ...over,
});

describe('faultView', () => {
  it('shows the time a live fault has left', () => {
    expect(faultView(fault({}), 25.2)).toMatchObject({
      text: 'ACTIVE since 10 s, 15 s left (3 applied)',
      active: true,
      canAdd: false,
      canDisable: true,
      canEnable: false,
    });
    expect(faultView(fault({ endAt: null }), 25).text).toBe('ACTIVE since 10 s, until removed (3 applied)');
  });

  it('says a disabled fault is disabled and offers to enable it', () => {
    expect(faultView(fault({ active: false, enabled: false }), 25)).toMatchObject({
      text: 'DISABLED, in its window (3 applied)',
      canEnable: true,
      canDisable: false,
      canRemove: true,
    });
  });

  it('tells scheduled, ended and absent faults apart', () => {
    expect(faultView(fault({ active: false }), 5).text).toBe('scheduled at 10 s');
    expect(faultView(fault({ active: false }), 50).text).toBe('ended at 40 s (3 applied)');
    expect(faultView(undefined, 5)).toMatchObject({ text: 'not on the timeline', canAdd: true, canRemove: false });
  });
});

describe('faultRowIds', () => {
  it('lists the catalogue, then faults added from elsewhere, once each', () => {
    expect(faultRowIds([{ id: 'a' }, { id: 'b' }], [{ id: 'b' }, { id: 'cli' }])).toEqual(['a', 'b', 'cli']);
  });
});

const form = (over: Partial<FaultForm>): FaultForm => ({
  id: 'storm',
  kind: 'status',
  status: '',
  at: '',
  for: '',
  providers: '',
  more: '',
  ...over,
});

describe('faultRequest', () => {
  it('adds a fault of any kind from the form fields and the JSON of the rest', () => {
    expect(
      faultRequest(
        form({ status: '429', for: '30s', providers: 'openai, gemini', more: '{"hint": {"seconds": 5}}' }),
        [],
      ),
    ).toEqual({
      ok: true,
      method: 'POST',
      url: 'control/faults',
      body: {
        id: 'storm',
        kind: 'status',
        status: 429,
        for: '30s',
        match: { provider: ['openai', 'gemini'] },
        hint: { seconds: 5 },
      },
    });
  });

  it('changes a fault already on the timeline', () => {
    expect(faultRequest(form({ id: 'a b', status: '503' }), ['a b'])).toMatchObject({
      method: 'PATCH',
      url: 'control/faults/a%20b',
      body: { id: 'a b', kind: 'status', status: 503 },
    });
  });

  it('refuses a form without an id or with more fields that are no JSON object', () => {
    expect(faultRequest(form({ id: ' ' }), [])).toEqual({ ok: false, error: 'id: give the fault an id' });
    expect(faultRequest(form({ more: '{nope' }), [])).toMatchObject({ ok: false, error: /^more fields: not JSON/ });
    expect(faultRequest(form({ more: '[1]' }), [])).toMatchObject({ ok: false, error: /expected a JSON object/ });
  });
});

describe('DASHBOARD_LOGIC', () => {
  it('runs on its own, as the page embeds it (no imports, no helpers of a bundler)', () => {
    const run = runInNewContext(
      `${DASHBOARD_LOGIC}
       var f = attemptFeed(); f.stream([[1, 'openai', 429, 2000, 'k', null, 9]]);
       var bands = []; addBand(bands, 1, 3); addBand(bands, 2, 4);
       ({ drawn: f.backlog([], 0).length, bands: bands, view: faultView(undefined, 0).text, cls: statusClass(529),
          pages: backlogPages(3, 10, 10).length, ids: faultRowIds([], [{ id: 'x' }]),
          req: faultRequest({ id: 'x', kind: 'hang', status: '', at: '', for: '', providers: '', more: '' }, []).method })`,
      {},
    ) as Record<string, unknown>;
    expect(JSON.parse(JSON.stringify(run))).toEqual({
      drawn: 1,
      bands: [[1, 4]],
      view: 'not on the timeline',
      cls: 'overload',
      pages: 1,
      ids: ['x'],
      req: 'POST',
    });
  });
});
