import { describe, expect, it } from 'vitest';
import { pushTurn, type Turn } from './push-turn.js';

describe('pushTurn', () => {
  it('merges a turn into the last one of the same role, and adds nothing for no content', () => {
    const turns: Turn[] = [];
    pushTurn(turns, 'user', [{ text: 'a' }]);
    pushTurn(turns, 'assistant', []);
    pushTurn(turns, 'user', [{ text: 'b' }, { text: 'c' }]);
    pushTurn(turns, 'assistant', [{ text: 'd' }]);
    pushTurn(turns, 'user', [{ text: 'e' }]);
    expect(turns).toEqual([
      { role: 'user', content: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] },
      { role: 'assistant', content: [{ text: 'd' }] },
      { role: 'user', content: [{ text: 'e' }] },
    ]);
  });
});
