import { describe, expect, it } from 'vitest';
import { row } from '../../test/helpers/evidence.js';
import { groupBy, isOwnKey } from './types.js';
import { attemptsByScope, forgetAttemptsByScope, scopeOf } from './windows.js';

/** The grouping as first written: a scope string per attempt. */
const byString = (rows: ReturnType<typeof row>[], scope: 'model' | 'key') => {
  const map = groupBy(rows, (r) => (r.endpoint !== 'chat' || !isOwnKey(r.key) ? undefined : scopeOf(r, scope)));
  for (const list of map.values()) list.sort((a, b) => a.arrivalAt - b.arrivalAt);
  return map;
};

describe('attemptsByScope', () => {
  const rows = [
    row({ at: 0, provider: 'openai', key: 'main', model: 'a' }),
    row({ at: 1, provider: 'anthropic', key: 'main', model: 'b' }),
    row({ at: 2, provider: 'openai', key: 'main', model: 'b' }),
    row({ at: 3, provider: 'openai', key: 'none', model: 'a' }),
    row({ at: 4, provider: 'openai', key: 'foreign:anthropic/main', model: 'a' }),
    row({ at: 5, provider: 'openai', key: 'main', model: 'a', endpoint: 'models' }),
    row({ at: 6, provider: 'openai', key: 'backup', model: null }),
    row({ at: 7, provider: 'openai', key: 'main', model: 'a' }),
  ];

  it('groups own-key chat attempts by scope as a scope string per attempt would, in the same order', () => {
    for (const scope of ['model', 'key'] as const) {
      forgetAttemptsByScope(rows);
      expect([...attemptsByScope(rows, scope)], scope).toEqual([...byString(rows, scope)]);
    }
  });

  it('groups by the string when two scopes read alike (a slash in a name, no model and an empty one)', () => {
    const alike = [
      row({ at: 0, provider: 'a/b', key: 'c', model: 'm' }),
      row({ at: 1, provider: 'a', key: 'b/c', model: 'm' }),
      row({ at: 2, provider: 'p', key: 'k', model: null }),
      row({ at: 3, provider: 'p', key: 'k', model: '' }),
    ];
    for (const scope of ['model', 'key'] as const) {
      forgetAttemptsByScope(alike);
      expect([...attemptsByScope(alike, scope)], scope).toEqual([...byString(alike, scope)]);
    }
  });

  it('is made once per rows array and scope until forgotten', () => {
    forgetAttemptsByScope(rows);
    const first = attemptsByScope(rows, 'model');
    expect(attemptsByScope(rows, 'model')).toBe(first);
    expect(attemptsByScope(rows, 'key')).not.toBe(first);
    forgetAttemptsByScope(rows);
    expect(attemptsByScope(rows, 'model')).not.toBe(first);
  });
});
