import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator } from '../../simulator/simulator.js';
import { startSimulatorServer, type SimulatorServer } from '../../simulator/transports/http-server.js';
import { scenarioFrom } from '../helpers/scenario.js';

// The control API changes what every provider answers, so a web page (a cross-site form, a
// text/plain POST, DNS rebinding) must not reach it; an optional token closes it further.

const YAML = `
version: 1
name: control
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-openai }] }
`;
const FAULT = JSON.stringify({ id: 'storm', kind: 'status', status: 529 });

let server: SimulatorServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function up(controlToken?: string) {
  const sim = createSimulator(scenarioFrom(YAML), { seed: 1 });
  server = await startSimulatorServer(sim, { port: 0, controlToken });
  return sim;
}

function send(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(server!.origin + path, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const json = { 'content-type': 'application/json' };

describe('control API guards', () => {
  it('refuses a fault posted as text/plain (a cross-site simple request) with 415', async () => {
    const sim = await up();
    const r = await send('/_throttlelab/faults', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: FAULT,
    });
    expect(r.status).toBe(415);
    expect(JSON.parse(r.body).error.message).toMatch(/send the body as JSON/);
    expect(sim.listFaults()).toEqual([]);
    expect((await send('/_throttlelab/faults', { method: 'POST', headers: json, body: FAULT })).status).toBe(201);
  });

  it('refuses a Host that is not loopback (DNS rebinding) with 403, on reads too', async () => {
    const sim = await up();
    for (const path of ['/_throttlelab/ledger', '/_throttlelab/faults']) {
      const r = await send(path, {
        method: path.endsWith('faults') ? 'POST' : 'GET',
        headers: { ...json, host: 'rebind.attacker.example:4000' },
        body: path.endsWith('faults') ? FAULT : undefined,
      });
      expect(r.status).toBe(403);
    }
    expect(sim.listFaults()).toEqual([]);
    expect((await send('/_throttlelab/health', { headers: { host: 'localhost:4000' } })).status).toBe(200);
  });

  it("refuses another site's Origin, and a sandboxed page's null Origin, with 403", async () => {
    await up();
    for (const origin of ['https://attacker.example', 'null'])
      expect(
        (await send('/_throttlelab/faults', { method: 'POST', headers: { ...json, origin }, body: FAULT })).status,
      ).toBe(403);
    expect((await send('/_throttlelab/health', { headers: { origin: 'http://127.0.0.1:5173' } })).status).toBe(200);
  });

  it('requires the token when one is set', async () => {
    await up('s3cret-control');
    expect((await send('/_throttlelab/health')).status).toBe(401);
    expect((await send('/_throttlelab/health', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await send('/_throttlelab/health', { headers: { authorization: 'Bearer s3cret-control' } })).status).toBe(
      200,
    );
  });

  it('refuses a keep-alive fault that would plan billions of fillers, as it would in a scenario', async () => {
    const sim = await up();
    const r = await send('/_throttlelab/faults', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ id: 'hold', kind: 'keep-alive', holdFor: '24d', interval: '1ms' }),
    });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).error.issues).toEqual([
      'interval: a hold sends one filler per interval, at most 10000: lengthen "interval" or shorten "holdFor"',
    ]);
    expect(sim.listFaults()).toEqual([]);
  });
});
