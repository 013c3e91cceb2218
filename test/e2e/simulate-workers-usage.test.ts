import { describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli.js';
import type { Io } from '../../bin/io.js';

// Mistakes with `simulate --workers` are the user's: exit 2 with one line, before anything starts.

async function cli(...args: string[]) {
  const errors: string[] = [];
  const io: Io = {
    out: () => {},
    err: (l) => errors.push(...l.split('\n')),
    env: {},
    stop: new AbortController().signal,
    randomSeed: () => 7,
    isTTY: false,
    status: () => {},
  };
  return { code: await runCli(args, io), err: errors.join('\n') };
}

describe('throttlelab simulate --workers', () => {
  it('refuses --redis-url without --workers', async () => {
    const r = await cli('simulate', 'scenarios/quickstart.yaml', '--redis-url', 'redis://127.0.0.1:1');
    expect(r.code).toBe(2);
    expect(r.err).toContain('--redis-url shares quotas between --workers; add --workers N.');
  });

  it('refuses --joiner-timeout without --workers, or one that is not a duration', async () => {
    const alone = await cli('simulate', 'scenarios/quickstart.yaml', '--joiner-timeout', '3s');
    expect(alone.code).toBe(2);
    expect(alone.err).toContain('--joiner-timeout is how long a --workers primary waits for joined workers');
    const bad = await cli('simulate', 'scenarios/quickstart.yaml', '--workers', '2', '--joiner-timeout', 'soon');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--joiner-timeout: expected a duration such as 30s or 5m, got "soon".');
  });

  it('refuses a Redis URL that is not one', async () => {
    const r = await cli('simulate', 'scenarios/quickstart.yaml', '--workers', '2', '--redis-url', 'http://x');
    expect(r.code).toBe(2);
    expect(r.err).toContain('expected a redis:// or rediss:// URL such as redis://127.0.0.1:6379.');
  });

  it('refuses --dashboard with --workers', async () => {
    const r = await cli('simulate', 'scenarios/quickstart.yaml', '--workers', '2', '--dashboard');
    expect(r.code).toBe(2);
    expect(r.err).toContain('--dashboard serves one process');
  });

  it('says so when the Redis given cannot be reached', async () => {
    const r = await cli(
      'simulate',
      'scenarios/quickstart.yaml',
      '--workers',
      '2',
      '--redis-url',
      'redis://127.0.0.1:1',
    );
    expect(r.code).toBe(2);
    expect(r.err).toContain('SIM_REDIS_UNREACHABLE');
    expect(r.err).toContain('Failed to connect to Redis at redis://127.0.0.1:1');
  }, 30_000);
});
