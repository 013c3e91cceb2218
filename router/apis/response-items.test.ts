import { describe, expect, it } from 'vitest';
import type { SharedItems } from '../core/shared-items.js';
import { keepsItems, ResponseItems, type ItemsContext } from './response-items.js';

const item = (id: string, text = 'x') => ({
  id,
  type: 'message',
  role: 'assistant',
  content: [{ type: 'output_text', text }],
});

describe('ResponseItems', () => {
  it("gives a caller back the items it was returned, and no other caller's", () => {
    const store = new ResponseItems({ maxItems: 10, maxBytes: 10_000 });
    const a = store.forCaller({ authorization: 'Bearer a' }, true);
    const b = store.forCaller({ authorization: 'Bearer b' }, true);
    a.remember(item('msg_1', 'hello'));
    expect(a.recall('msg_1')).toEqual(item('msg_1', 'hello'));
    expect(b.recall('msg_1')).toBeUndefined();
    expect(store.forCaller({}, true).recall('msg_1')).toBeUndefined();
  });

  it('keeps at most maxItems and maxBytes, the oldest out first', () => {
    const store = new ResponseItems({ maxItems: 2, maxBytes: 10_000 });
    const a = store.forCaller({ 'x-api-key': 'k' }, true);
    for (const id of ['m1', 'm2', 'm3']) a.remember(item(id));
    expect([a.recall('m1'), a.recall('m2')?.id, a.recall('m3')?.id]).toEqual([undefined, 'm2', 'm3']);
    const small = new ResponseItems({ maxItems: 100, maxBytes: JSON.stringify(item('m1')).length * 2 });
    const c = small.forCaller({}, true);
    for (const id of ['m1', 'm2', 'm3']) c.remember(item(id));
    expect(small.size).toBe(2);
    expect(c.recall('m1')).toBeUndefined();
    c.remember(item('huge', 'y'.repeat(1000)));
    expect(c.recall('huge')).toBeUndefined();
  });

  it('keeps nothing for a request that says store: false', () => {
    expect([keepsItems({ store: false }), keepsItems({ store: true }), keepsItems({}), keepsItems(null)]).toEqual([
      false,
      true,
      true,
      true,
    ]);
    const store = new ResponseItems({ maxItems: 10, maxBytes: 10_000 });
    store.forCaller({}, false).remember(item('m1'));
    expect(store.size).toBe(0);
  });

  it('gives the view of a request at once, not as a promise, given no fleet store', () => {
    const store = new ResponseItems({ maxItems: 10, maxBytes: 10_000 });
    const first = store.forRequest({ authorization: 'Bearer a' }, {});
    expect(first).not.toBeInstanceOf(Promise);
    (first as ItemsContext).remember(item('m1'));
    const next = store.forRequest({ authorization: 'Bearer a' }, { input: [{ type: 'item_reference', id: 'm1' }] });
    expect(next).not.toBeInstanceOf(Promise);
    expect((next as ItemsContext).recall('m1')?.id).toBe('m1');
  });
});

describe('ResponseItems with a fleet store', () => {
  function fakeShared(fail = false) {
    const kept = new Map<string, string>();
    const shared: SharedItems = {
      load: async (scope, ids) => {
        if (fail) throw new Error('Redis is away');
        return new Map(ids.flatMap((id) => (kept.has(`${scope} ${id}`) ? [[id, kept.get(`${scope} ${id}`)!]] : [])));
      },
      save: async (scope, id, json) => {
        kept.set(`${scope} ${id}`, json);
      },
    };
    return { shared, kept };
  }
  const refBody = (...ids: string[]) => ({ input: ids.map((id) => ({ type: 'item_reference', id })) });

  it("resolves an item another replica returned this caller, and no other caller's", async () => {
    const { shared } = fakeShared();
    const a = new ResponseItems({ maxItems: 10, maxBytes: 10_000 }, shared);
    const b = new ResponseItems({ maxItems: 10, maxBytes: 10_000 }, shared);
    (await a.forRequest({ authorization: 'Bearer k' }, {})).remember(item('msg_1', 'hi'));
    await Promise.resolve();
    expect((await b.forRequest({ authorization: 'Bearer k' }, refBody('msg_1'))).recall('msg_1')).toEqual(
      item('msg_1', 'hi'),
    );
    expect((await b.forRequest({ authorization: 'Bearer j' }, refBody('msg_1'))).recall('msg_1')).toBeUndefined();
  });

  it('writes nothing to the fleet for store: false, and never the credential', async () => {
    const { shared, kept } = fakeShared();
    const a = new ResponseItems({ maxItems: 10, maxBytes: 10_000 }, shared);
    (await a.forRequest({ authorization: 'Bearer secret' }, { store: false })).remember(item('m0'));
    (await a.forRequest({ authorization: 'Bearer secret' }, {})).remember(item('m1'));
    await Promise.resolve();
    expect(kept.size).toBe(1);
    expect([...kept].join(' ')).not.toContain('secret');
  });

  it('asks the fleet store only for references not known here, and answers at once without one', async () => {
    const { shared } = fakeShared();
    const asked: string[][] = [];
    const load = shared.load;
    shared.load = (scope, ids) => {
      asked.push([...ids]);
      return load(scope, ids);
    };
    const a = new ResponseItems({ maxItems: 10, maxBytes: 10_000 }, shared);
    const b = new ResponseItems({ maxItems: 10, maxBytes: 10_000 }, shared);
    const plain = a.forRequest({}, {});
    expect(plain).not.toBeInstanceOf(Promise);
    (plain as ItemsContext).remember(item('m1'));
    await Promise.resolve();
    const known = a.forRequest({}, refBody('m1'));
    expect(known).not.toBeInstanceOf(Promise);
    expect((known as ItemsContext).recall('m1')?.id).toBe('m1');
    const fetched = b.forRequest({}, refBody('m1'));
    expect(fetched).toBeInstanceOf(Promise);
    expect((await fetched).recall('m1')?.id).toBe('m1');
    expect(asked).toEqual([['m1']]);
  });

  it('falls back to its own items when the fleet store cannot answer', async () => {
    const { shared } = fakeShared(true);
    const a = new ResponseItems({ maxItems: 10, maxBytes: 10_000 }, shared);
    (await a.forRequest({}, {})).remember(item('m1'));
    const ctx = await a.forRequest({}, refBody('m1', 'elsewhere'));
    expect([ctx.recall('m1')?.id, ctx.recall('elsewhere')]).toEqual(['m1', undefined]);
  });
});
