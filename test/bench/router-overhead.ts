// Latency the reference router adds, and its throughput, against the same load sent straight to
// the simulator, side by side in one run; then its memory with 1 000 concurrent streams.
//   npm run bench:router -- [--rate 500] [--seconds 10] [--rounds 3] [--streams 1000]
// Open-loop load: requests are scheduled at a constant rate and latency is timed from each
// request's scheduled send time (as wrk2 does), so a stall cannot hide behind fewer requests.
import { fork, type ChildProcess } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Pool } from 'undici';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const rate = Number(args.get('rate') ?? 500);
const seconds = Number(args.get('seconds') ?? 10);
const rounds = Number(args.get('rounds') ?? 3);
const streams = Number(args.get('streams') ?? 1000);

function start(
  file: string,
  argv: string[],
  env: Record<string, string> = {},
  execArgv: string[] = [],
): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(join(import.meta.dirname, 'servers', file), argv, {
    execArgv: ['--import', 'tsx', ...execArgv],
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

interface Target {
  name: string;
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

async function openLoop(
  t: Target,
): Promise<{ p50: number; p90: number; p99: number; max: number; errors: number; achieved: number }> {
  const pool = new Pool(t.origin, { connections: 256, pipelining: 1 });
  const total = rate * seconds;
  const interval = 1000 / rate;
  const latencies: number[] = [];
  let errors = 0;
  const t0 = performance.now() + 50;
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const scheduled = t0 + i * interval;
    const delay = scheduled - performance.now();
    if (delay > 1) await new Promise((r) => setTimeout(r, delay));
    // Late sends are timed from their schedule (coordinated omission counts); a send the timer
    // let go up to 1 ms early is timed from when it really left.
    const from = Math.min(scheduled, performance.now());
    inflight.push(
      pool
        .request({ path: t.path, method: 'POST', headers: t.headers, body: t.body })
        .then(async (res) => {
          await res.body.text();
          if (res.statusCode !== 200) errors++;
          latencies.push(performance.now() - from);
        })
        .catch(() => {
          errors++;
        }),
    );
  }
  await Promise.all(inflight);
  const elapsed = (performance.now() - t0) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    p50: pct(latencies, 50),
    p90: pct(latencies, 90),
    p99: pct(latencies, 99),
    max: latencies.at(-1)!,
    errors,
    achieved: total / elapsed,
  };
}

const sim = await start('sim-server-slow.ts', []);
const simOrigin = `http://127.0.0.1:${sim.port}`;
const routerConfig = {
  version: 1,
  server: { maxBodyBytes: 1048576 },
  providers: [
    {
      id: 'openai',
      vendor: 'openai',
      baseUrl: `${simOrigin}/openai/v1`,
      keys: [{ id: 'main', env: 'BENCH_KEY' }],
      models: ['gpt-4o-mini'],
    },
    {
      id: 'slow',
      vendor: 'openai',
      baseUrl: `${simOrigin}/slow/v1`,
      keys: [{ id: 'main', env: 'BENCH_SLOW_KEY' }],
      models: ['gpt-4o-mini'],
    },
  ],
  deadline: { default: '60s' },
};
const router = await start(
  'router-server.ts',
  [JSON.stringify(routerConfig)],
  { BENCH_KEY: 'sk-bench', BENCH_SLOW_KEY: 'sk-bench-slow' },
  ['--expose-gc'],
);
const body = JSON.stringify({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'Write one sentence about rate limits.' }],
  max_tokens: 64,
});
const direct: Target = {
  name: 'direct to simulator',
  origin: simOrigin,
  path: '/openai/v1/chat/completions',
  headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
  body,
};
const viaRouter: Target = {
  name: 'through router',
  origin: `http://127.0.0.1:${router.port}`,
  path: '/v1/chat/completions',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ ...JSON.parse(body), model: 'openai/gpt-4o-mini' }),
};

console.log(
  `machine: ${cpus()[0]!.model}, ${cpus().length} vCPUs, ${Math.round(totalmem() / 2 ** 30)} GiB; node ${process.version}; load generator, router and simulator share the machine`,
);
console.log(
  `open loop: ${rate} req/s for ${seconds}s per run, ${rounds} rounds alternating; latency from scheduled send time`,
);
await openLoop({ ...direct });
await openLoop({ ...viaRouter }); // warm-up
const results: Record<string, Array<Awaited<ReturnType<typeof openLoop>>>> = {
  [direct.name]: [],
  [viaRouter.name]: [],
};
for (let i = 0; i < rounds; i++) {
  for (const t of [direct, viaRouter]) {
    const r = await openLoop(t);
    results[t.name]!.push(r);
    console.log(
      `  round ${i + 1} ${t.name.padEnd(20)} p50 ${r.p50.toFixed(2)} ms  p90 ${r.p90.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  max ${r.max.toFixed(1)} ms  errors ${r.errors}  achieved ${Math.round(r.achieved)} req/s`,
    );
  }
}
const med = (name: string, key: 'p50' | 'p99') =>
  results[name]!.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(rounds / 2)]!;
const addedP50 = med(viaRouter.name, 'p50') - med(direct.name, 'p50');
const addedP99 = med(viaRouter.name, 'p99') - med(direct.name, 'p99');
console.log(
  `median p50: direct ${med(direct.name, 'p50').toFixed(2)} ms, router ${med(viaRouter.name, 'p50').toFixed(2)} ms -> added ${addedP50.toFixed(2)} ms (goal < 0.5 ms)`,
);
console.log(
  `median p99: direct ${med(direct.name, 'p99').toFixed(2)} ms, router ${med(viaRouter.name, 'p99').toFixed(2)} ms -> added ${addedP99.toFixed(2)} ms (goal < 2 ms)`,
);

// Throughput: closed loop, as many requests as 50 connections can push.
for (const t of [direct, viaRouter]) {
  const r = await autocannon({
    url: t.origin + t.path,
    method: 'POST',
    headers: t.headers,
    body: t.body,
    connections: 50,
    duration: 5,
  });
  console.log(
    `throughput ${t.name.padEnd(20)} ${Math.round(r.requests.average)} req/s (autocannon, 50 connections, 5 s, ${r.non2xx} non-2xx)`,
  );
}

// Memory with many concurrent streams: 120 tokens at 20 tokens/s keeps each open ~6 s.
const idle = await ask<{ rss: number; heapUsed: number }>(router.child, 'gc');
const pool = new Pool(viaRouter.origin, { connections: streams + 10 });
let opened = 0;
let finished = 0;
const streamBody = JSON.stringify({
  model: 'slow/gpt-4o-mini',
  stream: true,
  messages: [{ role: 'user', content: 'Tell me a long story.' }],
});
const all = Array.from({ length: streams }, async () => {
  const res = await pool.request({
    path: '/v1/chat/completions',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: streamBody,
  });
  let first = true;
  for await (const _ of res.body) {
    if (first) {
      opened++;
      first = false;
    }
  }
  finished++;
});
while (opened < streams) await new Promise((r) => setTimeout(r, 50));
const busy = await ask<{ rss: number; heapUsed: number }>(router.child, 'gc');
console.log(
  `memory with ${streams} concurrent streams: rss ${Math.round(idle.rss / 2 ** 20)} -> ${Math.round(busy.rss / 2 ** 20)} MiB, heap ${Math.round(idle.heapUsed / 2 ** 20)} -> ${Math.round(busy.heapUsed / 2 ** 20)} MiB (${((busy.heapUsed - idle.heapUsed) / streams / 1024).toFixed(1)} KiB heap per stream)`,
);
await Promise.all(all);
await pool.close();
console.log(`streams completed: ${finished}`);
router.child.kill('SIGTERM');
sim.child.kill('SIGTERM');
