import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { connect, type ClientHttp2Session } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../../simulator/simulator.js';
import { startSimulatorServer, type SimulatorServer } from '../../simulator/transports/http-server.js';
import { generateTlsIdentity, type TlsIdentity } from '../../simulator/transports/tls-identity.js';
import { h2Request } from '../helpers/h2-request.js';
import { chatCall, scenarioFrom } from '../helpers/scenario.js';

const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const YAML = `
version: 1
name: tls
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-openai }], latency: { completionTokens: 4 } }
  - { id: bedrock, vendor: bedrock, models: ["${MODEL}"], keys: [{ id: main, value: "AKIASIMBEDROCK0001:sim-secret" }], latency: { completionTokens: 6 } }
`;

let identity: TlsIdentity;
let server: SimulatorServer;
const errors: unknown[] = [];
const sim = createSimulator(scenarioFrom(YAML), { seed: 3 });
beforeAll(async () => {
  identity = await generateTlsIdentity();
  server = await startSimulatorServer(sim, { port: 0, tls: identity, onError: (e) => errors.push(e) });
});
afterAll(async () => {
  await server.close();
  expect(errors).toEqual([]);
});

describe('simulator over TLS', () => {
  it('serves https origins and negotiates HTTP/2 by ALPN', async () => {
    expect(server.origin).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const session: ClientHttp2Session = connect(server.origin, { ca: identity.caCert });
    try {
      const a = await h2Request(session, chatCall('openai'));
      expect(session.alpnProtocol).toBe('h2');
      expect(a.status).toBe(200);
      expect(JSON.parse(a.body.toString()).object).toBe('chat.completion');
    } finally {
      session.close();
    }
  });

  it('serves HTTP/1.1 to a client that offers no ALPN, on the same port', async () => {
    const c = chatCall('openai');
    const { status, version } = await new Promise<{ status: number; version: string }>((resolve, reject) => {
      const req = request(
        `${server.origin}${c.url}`,
        { method: c.method, headers: c.headers, ca: identity.caCert },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, version: res.httpVersion }));
        },
      );
      req.on('error', reject);
      req.end(c.body);
    });
    expect([status, version]).toEqual([200, '1.1']);
  });

  it('refuses a client that does not trust the CA, and serves on', async () => {
    const session = connect(server.origin);
    const failed = await new Promise<string>((resolve) =>
      session.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? '')),
    );
    session.destroy();
    expect(failed).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|CERT/);
    const again = connect(server.origin, { ca: identity.caCert });
    expect((await h2Request(again, chatCall('openai'))).status).toBe(200);
    again.close();
  });

  it('serves the official Bedrock client, with no options, Converse and ConverseStream over h2 (NODE_EXTRA_CA_CERTS)', async () => {
    const caFile = join(await mkdtemp(join(tmpdir(), 'throttlelab-tls-test-')), 'ca.pem');
    await writeFile(caFile, identity.caCert);
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: tmpdir(), NODE_EXTRA_CA_CERTS: caFile };
    for (const [name, value] of sim.endpoints(server.origin).find((e) => e.id === 'bedrock')!.keys[0]!.env)
      env[name] = value;
    Object.assign(env, {
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_CONFIG_FILE: '/dev/null',
      AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
    });
    const before = sim.ledger.size;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'test/fixtures/bedrock/default-client.ts', MODEL],
      { env, timeout: 60_000 },
    );
    const out = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(out.handler).toBe('NodeHttp2Handler');
    expect(out.plain).toMatchObject({ stop: 'end_turn', usage: { outputTokens: 6 } });
    expect(out.plain.text.trim().split(/\s+/)).toHaveLength(6);
    expect(out.stream).toMatchObject({ stop: 'end_turn', outputTokens: 6 });
    expect(out.stream.text.trim().split(/\s+/)).toHaveLength(6);
    expect(sim.ledger.size - before).toBe(2);
    expect(sim.ledger.row(before + 1)).toMatchObject({ provider: 'bedrock', status: 200, stream: true });
  }, 90_000);
});
