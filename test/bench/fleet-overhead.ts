// What sharing state through Redis costs the reference router: its added latency and throughput
// with the Redis store against the in-memory store, side by side in one run.
//   npm run bench:fleet-overhead -- [--rate 500] [--seconds 6] [--rounds 3]
// The simulator (openai profile, no latency), two routers (memory store, Redis store) and a
// redis-server each run in their own process; the load generator is this process. The two routers
// take their load at the same time, request by request in turn, so that whatever else the shared
// machine does hits both alike: an open loop at `rate` per router (latency timed from each
// request's scheduled send time), then closed-loop throughput (autocannon, 25 connections each, at
// once). Also the router's CPU per request, and Redis commands per routed request (to show that
// the hot path does not pay a round trip).
import { fork, type ChildProcess } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { Pool } from 'undici';
import { startRedisServer } from '../../harness/index.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const rate = Number(args.get('rate') ?? 500);
const seconds = Number(args.get('seconds') ?? 8);
const rounds = Number(args.get('rounds') ?? 3);

function start(
  file: string,
  argv: string[],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(join(import.meta.dirname, 'servers', file), argv, {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (d) => resolve({ child, port: JSON.parse(String(d)).port }));
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
}

const ask = <T>(child: ChildProcess, msg = 'stats'): Promise<T> =>
  new Promise((resolve) => {
    child.once('message', (m) => resolve(m as T));
    child.send(msg);
  });

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** An open loop over several routers at once: request `i` goes to router `i mod n`, each at `rate`. */
async function openLoop(origins: string[]): Promise<Array<{ p50: number; p99: number; errors: number; sent: number }>> {
  const pools = origins.map((o) => new Pool(o, { connections: 256, pipelining: 1 }));
  const total = rate * seconds * origins.length;
  const interval = 1000 / rate / origins.length;
  const latencies: number[][] = origins.map(() => []);
  const errors = origins.map(() => 0);
  const t0 = performance.now() + 50;
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const scheduled = t0 + i * interval;
    const delay = scheduled - performance.now();
    if (delay > 1) await new Promise((r) => setTimeout(r, delay));
    const from = Math.min(scheduled, performance.now());
    const k = i % origins.length;
    inflight.push(
      pools[k]!.request({
        path: '/v1/chat/completions',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
        .then(async (res) => {
          await res.body.text();
          if (res.statusCode !== 200) errors[k]!++;
          latencies[k]!.push(performance.now() - from);
        })
        .catch(() => void errors[k]!++),
    );
  }
  await Promise.all(inflight);
  await Promise.all(pools.map((p) => p.close()));
  return latencies.map((l, k) => {
    l.sort((a, b) => a - b);
    return { p50: pct(l, 50), p99: pct(l, 99), errors: errors[k]!, sent: total / origins.length };
  });
}

const body = JSON.stringify({
  model: 'openai/gpt-4o-mini',
  messages: [{ role: 'user', content: 'Write one sentence about rate limits.' }],
  max_tokens: 64,
});

const redis = await startRedisServer();
const sim = await start('sim-server-slow.ts', []);
const provider = (id: string, env: string) => ({
  id,
  vendor: 'openai',
  baseUrl: `http://127.0.0.1:${sim.port}/${id}/v1`,
  keys: [{ id: 'main', env }],
  models: ['gpt-4o-mini'],
});
const config = (store: unknown) =>
  JSON.stringify({ version: 1, providers: [provider('openai', 'BENCH_KEY')], deadline: { default: '60s' }, store });
const keys = { BENCH_KEY: 'sk-bench' };
const routers = {
  memory: await start('router-server.ts', [config({ kind: 'memory' })], keys),
  redis: await start('router-server.ts', [config({ kind: 'redis', url: redis.url, keyPrefix: 'bench:' })], keys),
};
const admin = new Redis(redis.url);
const commandsProcessed = async () => Number(/total_commands_processed:(\d+)/.exec(await admin.info('stats'))![1]);

console.log(
  `machine: ${cpus()[0]!.model}, ${cpus().length} vCPUs, ${Math.round(totalmem() / 2 ** 30)} GiB; node ${process.version}; load generator, routers, simulator and Redis share the machine`,
);
console.log(
  `open loop: ${rate} req/s to each router at once (requests in turn) for ${seconds} s per round, ${rounds} rounds`,
);
const names = Object.keys(routers) as Array<keyof typeof routers>;
const origins = names.map((n) => `http://127.0.0.1:${routers[n].port}`);
await openLoop(origins); // warm-up
const results: Record<string, Array<{ p50: number; p99: number }>> = { memory: [], redis: [] };
const cpu: Record<string, number[]> = { memory: [], redis: [] };
const perRequest: number[] = [];
for (let i = 0; i < rounds; i++) {
  const before = await commandsProcessed();
  for (const n of names) await ask(routers[n].child);
  const res = await openLoop(origins);
  const after = await commandsProcessed();
  for (const [k, n] of names.entries()) {
    const { cpuUs } = await ask<{ cpuUs: number }>(routers[n].child);
    cpu[n]!.push(cpuUs / res[k]!.sent);
    results[n]!.push(res[k]!);
    console.log(
      `  round ${i + 1} ${n.padEnd(7)} store: p50 ${res[k]!.p50.toFixed(2)} ms  p99 ${res[k]!.p99.toFixed(2)} ms  router CPU ${(cpuUs / res[k]!.sent).toFixed(0)} µs/request  errors ${res[k]!.errors}`,
    );
  }
  perRequest.push((after - before - 1) / res[names.indexOf('redis')]!.sent);
}
const med = (name: string, k: 'p50' | 'p99') => median(results[name]!.map((r) => r[k]));
for (const k of ['p50', 'p99'] as const)
  console.log(
    `median ${k}: memory ${med('memory', k).toFixed(2)} ms, Redis ${med('redis', k).toFixed(2)} ms -> Redis adds ${(med('redis', k) - med('memory', k)).toFixed(2)} ms (ratio ${(med('redis', k) / med('memory', k)).toFixed(2)})`,
  );
console.log(
  `median router CPU per request: memory ${median(cpu.memory!).toFixed(0)} µs, Redis ${median(cpu.redis!).toFixed(0)} µs -> Redis adds ${(median(cpu.redis!) - median(cpu.memory!)).toFixed(0)} µs (ratio ${(median(cpu.redis!) / median(cpu.memory!)).toFixed(2)})`,
);
console.log(
  `Redis commands per request routed through the Redis store (its batches and heartbeats): ${median(perRequest).toFixed(3)}`,
);

const throughput: Record<string, number[]> = { memory: [], redis: [] };
for (let i = 0; i < rounds; i++) {
  const res = await Promise.all(
    names.map((n) =>
      autocannon({
        url: `http://127.0.0.1:${routers[n].port}/v1/chat/completions`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        connections: 25,
        duration: 5,
      }),
    ),
  );
  for (const [k, n] of names.entries()) {
    throughput[n]!.push(res[k]!.requests.average);
    console.log(
      `  throughput round ${i + 1} ${n.padEnd(7)} ${Math.round(res[k]!.requests.average)} req/s (${res[k]!.non2xx} non-2xx)`,
    );
  }
}
console.log(
  `median throughput (autocannon, 25 connections to each router at once, 5 s): memory ${Math.round(median(throughput.memory!))} req/s, Redis ${Math.round(median(throughput.redis!))} req/s (ratio ${(median(throughput.redis!) / median(throughput.memory!)).toFixed(2)})`,
);
admin.disconnect();
for (const r of [...Object.values(routers), sim]) r.child.kill('SIGTERM');
await redis.close();
