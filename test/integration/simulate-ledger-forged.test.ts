import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../../harness/index.js';
import { eventually } from '../helpers/eventually.js';
import { oneKeyScenario, postChat, startSimulate } from '../helpers/simulate-workers.js';

// Everything read from Redis is untrusted (issue 23's rule): entries forged into a group's
// ledger stream are refused and reported, never stored as attempts, and do not stop the real
// rows from landing in every worker's /ledger and in the primary's --ledger-out.

const CHAT = '/openai/v1/chat/completions';
const SCENARIO = oneKeyScenario('forged-ledger', 8, 100);
const SENT = 20;

let dir: string;
let redis: RedisServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tl-forged-'));
  redis = await startRedisServer({ startTimeoutMs: 20_000 });
}, 30_000);

afterAll(async () => {
  await redis?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A row as a worker writes it, arriving now. */
function row(patch: Record<string, unknown> = {}): string {
  const now = Date.now();
  return JSON.stringify({
    seq: 0,
    arrivalAt: now,
    firstByteAt: now + 1,
    endAt: now + 2,
    provider: 'openai',
    vendor: 'openai',
    key: 'a',
    model: 'gpt-4o-mini',
    endpoint: 'chat',
    correlationId: null,
    sdkRetryCount: null,
    stream: false,
    status: 200,
    errorType: null,
    hintMs: null,
    hintForm: null,
    quota: { requestsBefore: 5, requestsAfter: 4, tokensBefore: null, tokensAfter: null, emptyForMs: 0 },
    tokensIn: 10,
    tokensOut: 5,
    faults: [],
    contentDigest: null,
    contentChars: null,
    carried: [],
    end: 'complete',
    ...patch,
  });
}

function ledgerTotal(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/_throttlelab/ledger?limit=1', agent: false, timeout: 30_000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve((JSON.parse(body) as { total: number }).total));
      },
    );
    req.on('timeout', () => req.destroy(new Error('control call timed out')));
    req.on('error', reject);
    req.end();
  });
}

describe('simulate --workers 2: a forged ledger stream', () => {
  it('refuses and reports forged entries, keeps serving, and ledgers the real rows', async () => {
    const file = join(dir, 'scenario.yaml');
    const ledger = join(dir, 'ledger.jsonl');
    await writeFile(file, SCENARIO);
    const sim = await startSimulate(file, ['--workers', '2', '--redis-url', redis.url, '--ledger-out', ledger]);
    const client = new Redis(redis.url);
    try {
      const [key] = await client.keys('tl:*:ledger');
      const add = (...fields: string[]) => client.xadd(key!, '*', ...fields);
      await add('w', 'j-deadbeef', 'hello', '1');
      // Huge numbers, a NaN, wrong types, an oversized field: a batch with nothing usable.
      await add(
        'w',
        'j-deadbeef',
        'n',
        '1',
        'rows',
        [
          row({ tokensIn: 1e300, status: 70_000 }),
          'NaN',
          row({ status: '200', stream: 'yes' }),
          row({ provider: 'x'.repeat(1_000_000) }),
          row({ arrivalAt: 1e300 }),
        ].join('\n'),
      );
      // One good row and one malformed: the good one is kept, the other is a missing row.
      await add('w', 'j-deadbeef', 'n', '1', 'rows', [row(), 'NaN'].join('\n'));
      await add('w', 'j-deadbeef', 'end', '2');
      // A forked worker's numbering pushed past any real row, an unknown worker, a NaN count.
      await add('w', 'w1', 'n', '1e300', 'rows', row());
      await add('w', 'w2', 'n', 'NaN', 'rows', row());
      await add('w', 'evil', 'n', '1', 'rows', row());
      await add('w', 'w2', 'end', 'Infinity');
      await add('w', 'w1', 'n', '1', 'rows', 'x'.repeat(4_000_000));

      const statuses: number[] = [];
      for (let i = 0; i < SENT; i += 10)
        statuses.push(
          ...(await Promise.all(
            Array.from({ length: 10 }, (_, j) => postChat(sim.port, CHAT, 'sk-sim-a', `hi ${i + j}`)),
          )),
        );
      expect(statuses).toEqual(Array.from({ length: SENT }, () => 200));
      // Every worker's /ledger: the real attempts and the one well-formed forged row, nothing else.
      await eventually(async () => {
        for (let i = 0; i < 6; i++) expect(await ledgerTotal(sim.port)).toBe(SENT + 1);
      }, 60_000);
    } finally {
      client.disconnect();
    }
    const { code, out } = await sim.stop();
    expect(out).toMatch(
      /simulate worker w\d: refused rows of "evil" read from the group's ledger stream \(not a worker of this group\)/,
    );
    expect(out).toMatch(/simulate: refused a ledger entry of "j-deadbeef" read from Redis \(status: Too big/);
    expect(out).toMatch(
      /simulate: refused \d+ entries of the ledger stream \(\d+ rows\) that no worker of this group could have written/,
    );
    // The malformed row is a missing row: the primary's ledger is incomplete, and says whose.
    expect(code, out).toBe(2);
    expect(out).toMatch(
      /--ledger-out \S+ is incomplete: joined worker j-deadbeef recorded 2 attempts; 1 of them are missing: 1 arrived malformed and were refused, 0 did not reach/,
    );
    const rows = (await readFile(ledger, 'utf8')).trim().split('\n');
    expect(rows).toHaveLength(SENT + 1);
  }, 300_000);
});
