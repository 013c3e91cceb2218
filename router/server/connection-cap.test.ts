import { describe, expect, it } from 'vitest';
import { connectionCap } from './connection-cap.js';

describe('connectionCap', () => {
  it.each([
    { name: 'keeps the configured cap given no known limit', configured: 4096, limit: undefined, cap: 4096 },
    { name: 'keeps the configured cap given room for it', configured: 4096, limit: 20_000, cap: 4096 },
    {
      name: 'halves what the limit leaves past the baseline given ulimit -n 1024',
      configured: 4096,
      limit: 1024,
      cap: 476,
    },
    { name: 'keeps one connection given a limit below the baseline', configured: 4096, limit: 50, cap: 1 },
  ])('$name', ({ configured, limit, cap }) => {
    expect(connectionCap(configured, limit)).toBe(cap);
  });
});
