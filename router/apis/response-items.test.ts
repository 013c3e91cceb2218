import { describe, expect, it } from 'vitest';
import { keepsItems, ResponseItems } from './response-items.js';

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
});
