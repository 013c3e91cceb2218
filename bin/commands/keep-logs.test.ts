import { mkdir, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keepLogs } from './keep-logs.js';

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

describe('keepLogs', () => {
  it("copies a fleet's logs into the report folder and removes the fleet's temporary folder", async () => {
    const fleetDir = await mkdtemp(join(tmpdir(), 'throttlelab-fleet-7-'));
    await writeFile(join(fleetDir, 'router.json'), '{}');
    await writeFile(join(fleetDir, 'replica-0.log'), 'zero');
    await writeFile(join(fleetDir, 'replica-1.log'), 'one');
    const out = await mkdtemp(join(tmpdir(), 'keep-logs-out-'));
    const kept = await keepLogs([join(fleetDir, 'replica-0.log'), join(fleetDir, 'replica-1.log')], out);
    expect(kept).toEqual([join(out, 'replica-0.log'), join(out, 'replica-1.log')]);
    expect(await readFile(join(out, 'replica-1.log'), 'utf8')).toBe('one');
    expect(await exists(fleetDir)).toBe(false);
  });

  it('leaves a folder that is not one of its own temporary folders', async () => {
    const mine = await mkdtemp(join(tmpdir(), 'someone-else-'));
    const nested = join(mine, 'throttlelab-fleet-1-x');
    await mkdir(nested);
    await writeFile(join(nested, 'replica-0.log'), 'zero');
    const out = await mkdtemp(join(tmpdir(), 'keep-logs-out-'));
    await keepLogs([join(nested, 'replica-0.log')], out);
    expect(await exists(join(nested, 'replica-0.log'))).toBe(true);
  });
});
