// `throttlelab fault` against a served simulator: the control API's faults, as Toxiproxy's toxics.
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { chatCall } from '../helpers/scenario.js';
import { serve, type Served } from '../helpers/serve.js';

const YAML = `
version: 1
name: faults
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-openai }] }
`;

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function status(origin: string): Promise<number> {
  const c = chatCall('openai');
  const res = await fetch(origin + c.url, { method: c.method, headers: c.headers, body: c.body });
  await res.arrayBuffer();
  return res.status;
}

describe('throttlelab fault', () => {
  it('lists as JSON, updates, disables and enables a live fault', async () => {
    served = await serve(YAML);
    const sim = served.origin;
    const run = (...args: string[]) => cli(['fault', ...args, '--sim', sim]);
    expect((await run('add', '{ id: storm, kind: status, status: 429, for: 10m }')).code).toBe(0);

    const listed = await run('list', '--json');
    expect(listed.code).toBe(0);
    const { faults } = JSON.parse(listed.out.join('\n')) as { faults: Array<Record<string, unknown>> };
    expect(faults).toEqual([
      expect.objectContaining({ id: 'storm', kind: 'status', origin: 'live', active: true, enabled: true }),
    ]);
    expect(faults[0]!.timeLeftMs).toBeGreaterThan(9 * 60_000);
    expect(faults[0]!.timeLeftMs).toBeLessThanOrEqual(10 * 60_000);

    expect(await run('update', 'storm', '{ status: 503 }')).toMatchObject({ code: 0, out: ['updated storm (status)'] });
    expect(await status(sim)).toBe(503);

    expect(await run('disable', 'storm')).toMatchObject({ code: 0, out: ['disabled storm (status, disabled)'] });
    expect(await status(sim)).toBe(200);
    expect((await run('list')).out).toEqual([
      expect.stringMatching(/^storm {2}status {2}live {2}DISABLED, in its window {2}1 applied$/),
    ]);

    expect(await run('enable', 'storm')).toMatchObject({ code: 0, out: ['enabled storm (status)'] });
    expect(await status(sim)).toBe(503);
  });

  it('says why an update is refused, and which fault is missing', async () => {
    served = await serve(YAML);
    const sim = served.origin;
    const run = (...args: string[]) => cli(['fault', ...args, '--sim', sim]);
    await run('add', '{ id: storm, kind: status, status: 429 }');
    const bad = await run('update', 'storm', '{ status: 200 }');
    expect(bad.code).toBe(2);
    expect(bad.err.join('\n')).toMatch(/fault update storm: the simulator answered 400[^]*status: Too small/);
    const missing = await run('disable', 'nope');
    expect(missing.code).toBe(2);
    expect(missing.err.join('\n')).toMatch(/fault disable nope: the simulator answered 404: .*no such fault/);
    const usage = await run('update', 'storm');
    expect(usage.code).toBe(2);
    expect(usage.err.join('\n')).toMatch(/give the id and the fields to change/);
  });
});
