// Requests per second of the simulator (openai profile, quotas and ledger on) against bare
// node:http servers returning the same body, measured side by side in one run with autocannon.
// Two baselines: the same body with minimal headers (what the goal names), and the same body with
// the simulator's own header set (which isolates the simulator's logic). Rounds alternate the
// three servers so that machine noise hits all alike; medians are reported, and each server's
// CPU time per request, which does not depend on the load generator.
//   npm run bench:simulator -- [--rounds 5] [--seconds 5] [--connections 50] [--target chat|responses|cerebras]
import { fork, type ChildProcess } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { createSimulator } from '../../simulator/index.js';
import { createFakeClock } from '../../simulator/core/fake-clock.js';
import { collectReply } from '../helpers/collect-reply.js';
import { benchRequest, BENCH_SCENARIO } from './servers/bench-scenario.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const rounds = Number(args.get('rounds') ?? 5);
const seconds = Number(args.get('seconds') ?? 5);
const connections = Number(args.get('connections') ?? 50);
const BENCH_REQUEST = benchRequest(process.argv);

interface Server {
  name: string;
  child: ChildProcess;
  port: number;
  rps: number[];
  cpuPerReq: number[];
}

function start(name: string, file: string, argv: string[] = []): Promise<Server> {
  const child = fork(join(import.meta.dirname, 'servers', file), argv, {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (d) =>
      resolve({ name, child, port: JSON.parse(String(d)).port, rps: [], cpuPerReq: [] }),
    );
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
}

function ask<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m as T));
    child.send('stats');
  });
}

async function load(s: Server, record: boolean): Promise<void> {
  await ask(s.child);
  const r = await autocannon({
    url: `http://127.0.0.1:${s.port}${BENCH_REQUEST.path}`,
    method: 'POST',
    headers: BENCH_REQUEST.headers,
    body: BENCH_REQUEST.body,
    connections,
    duration: seconds,
  });
  const { cpuUs } = await ask<{ cpuUs: number }>(s.child);
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${s.name} answered ${r.non2xx} non-2xx and ${r.errors} errors`);
  if (!record) return;
  s.rps.push(r.requests.average);
  s.cpuPerReq.push(cpuUs / r.requests.total);
  console.log(
    `  ${s.name.padEnd(18)} ${String(Math.round(r.requests.average)).padStart(6)} req/s   p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms   ${(cpuUs / r.requests.total).toFixed(1)} µs CPU/req`,
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// The bare servers return exactly what the simulator returns for this request.
const clock = createFakeClock();
const probe = createSimulator(BENCH_SCENARIO, { seed: 1, clock });
const sample = await collectReply(
  probe.handle({ method: 'POST', url: BENCH_REQUEST.path, headers: BENCH_REQUEST.headers, body: BENCH_REQUEST.body }),
  clock,
);
const simHeaders = Object.fromEntries(
  Object.entries(sample.headers).filter(([k]) => k !== 'content-type' && k !== 'content-length'),
);
const servers = [
  await start('bare (same body)', 'bare-server.ts', [sample.body]),
  await start('bare (+ headers)', 'bare-server.ts', [sample.body, JSON.stringify(simHeaders)]),
  await start('simulator', 'sim-server.ts'),
];

console.log(
  `machine: ${cpus()[0]!.model}, ${cpus().length} vCPUs, ${Math.round(totalmem() / 2 ** 30)} GiB; node ${process.version}; load generator and server share the machine`,
);
console.log(
  `load: autocannon ${connections} connections, POST ${BENCH_REQUEST.path}, ${seconds}s per run, ${rounds} rounds alternating; response ${Object.keys(sample.headers).length} headers, body ${Buffer.byteLength(sample.body)} bytes`,
);
for (const s of servers) for (let i = 0; i < 2; i++) await load(s, false); // JIT warm-up
for (let i = 0; i < rounds; i++) {
  console.log(`round ${i + 1}`);
  for (const s of servers) await load(s, true);
}
const [bare, bareHeaders, sim] = servers as [Server, Server, Server];
const stats = await ask<{ rows: number; rss: number }>(sim.child);
console.log('medians:');
for (const s of servers)
  console.log(
    `  ${s.name.padEnd(18)} ${String(Math.round(median(s.rps))).padStart(6)} req/s   ${median(s.cpuPerReq).toFixed(1)} µs CPU/req`,
  );
console.log(
  `ratio simulator / bare (same body):    ${(median(sim.rps) / median(bare.rps)).toFixed(2)}  (goal >= 0.80)`,
);
console.log(`ratio simulator / bare (+ same headers): ${(median(sim.rps) / median(bareHeaders.rps)).toFixed(2)}`);
console.log(`simulator ledger rows ${stats.rows}, rss ${Math.round(stats.rss / 2 ** 20)} MiB`);
for (const s of servers) s.child.kill('SIGTERM');
