import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../router/core/fake-clock.js';
import { createRedisStore, type RedisStore } from '../../router/state/redis-store.js';
import { startPrivateRedis } from '../helpers/private-redis.js';

// A paused Redis (SIGSTOP: connections stay open, nothing answers) must not hold a stopping
// router. The deadline runs on a fake clock: the test does not wait for it on the wall clock.

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

describe('a Redis store closing while Redis is paused', () => {
  it('closes once its close deadline passes, whatever Redis does', async () => {
    const redis = await startPrivateRedis();
    cleanup.push(() => redis.close());
    const clock = createFakeClock(Date.now());
    const store: RedisStore = createRedisStore({
      url: redis.url,
      keyPrefix: 'paused:',
      replica: 'r0',
      clock,
      timeoutMs: 200,
      flushMs: 10,
      closeTimeoutMs: 3_000,
    });
    cleanup.push(() => Promise.race([store.close(), new Promise<void>((r) => setTimeout(r, 100))]));
    expect(await store.joined(10_000)).toBe(true);
    redis.pause();
    let closed = false;
    const closing = store.close().then(() => (closed = true));
    await clock.advance(3_000);
    // Generous: once the deadline passed on the fake clock, dropping the connections takes microseconds.
    const outcome = await Promise.race([
      closing.then(() => 'closed'),
      new Promise((r) => setTimeout(() => r('still closing'), 10_000)),
    ]);
    expect(outcome).toBe('closed');
    expect(closed).toBe(true);
  });
});
