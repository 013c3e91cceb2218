// Latency and CPU the reference router adds, and its throughput, against the same load sent
// straight to the simulator and through a bare node:http + undici proxy (the same two hops, no
// logic: the limit for a Node router), side by side in one run; then its memory with 1 000
// concurrent streams.
//   npm run bench:router -- [--rates 200,500] [--seconds 10] [--rounds 3] [--streams 1000]
//     [--body-kb 64] (a conversation of about that size before the question, as agents send)
//     [--router-node-args '--max-semi-space-size=1'] (V8 flags for the router's process)
//     [--baseline /path/to/other/checkout] (that checkout's router as a fourth subject, same
//     config and flags, in the same alternating rounds: before / after a change in one run)
// Open-loop load: requests are scheduled at a constant rate and latency is timed from each
// request's scheduled send time (as wrk2 does), so a stall cannot hide behind fewer requests.
import { fork, type ChildProcess } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { openLoop as openLoopAt, type Target } from './open-loop.js';

const openLoop = (t: Target, rate: number) => openLoopAt(t, rate, seconds);

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const rates = (args.get('rates') ?? args.get('rate') ?? '200,500').split(',').map(Number);
const seconds = Number(args.get('seconds') ?? 10);
const rounds = Number(args.get('rounds') ?? 3);
const streams = Number(args.get('streams') ?? 1000);
const bodyKb = Number(args.get('body-kb') ?? 0);
const routerNodeArgs = (args.get('router-node-args') ?? '').split(' ').filter(Boolean);
const baselineDir = args.get('baseline');

function start(
  file: string,
  argv: string[],
  env: Record<string, string> = {},
  execArgv: string[] = [],
): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(file.startsWith('/') ? file : join(import.meta.dirname, 'servers', file), argv, {
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
  ['--expose-gc', ...routerNodeArgs],
);
const baseline = baselineDir
  ? await start(
      join(baselineDir, 'test/bench/servers/router-server.ts'),
      [JSON.stringify(routerConfig)],
      { BENCH_KEY: 'sk-bench', BENCH_SLOW_KEY: 'sk-bench-slow' },
      ['--expose-gc', ...routerNodeArgs],
    )
  : undefined;
// Earlier turns of about 1 KiB each, alternating user and assistant.
const history = Array.from({ length: bodyKb }, (_, i) => ({
  role: i % 2 === 0 ? 'user' : 'assistant',
  content: `Turn ${i}: ${'rate limits and retries, '.repeat(40)}`,
}));
const body = JSON.stringify({
  model: 'gpt-4o-mini',
  messages: [...history, { role: 'user', content: 'Write one sentence about rate limits.' }],
  max_tokens: 64,
});
const bare = await start('bare-proxy.ts', [`${simOrigin}/openai/v1`], { BENCH_KEY: 'sk-bench' });
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
const viaBare: Target = {
  name: 'through bare proxy',
  origin: `http://127.0.0.1:${bare.port}`,
  path: '/v1/chat/completions',
  headers: { 'content-type': 'application/json' },
  body,
};

const viaBaseline: Target | undefined = baseline && {
  ...viaRouter,
  name: 'through baseline router',
  origin: `http://127.0.0.1:${baseline.port}`,
};
const subjects = [direct, viaBare, viaRouter, ...(viaBaseline ? [viaBaseline] : [])];

const load = await import('node:os').then((os) =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' '),
);
console.log(
  `machine: ${cpus()[0]!.model}, ${cpus().length} vCPUs, ${Math.round(totalmem() / 2 ** 30)} GiB; node ${process.version}; load average ${load}; load generator, proxies and simulator share the machine`,
);
console.log(`body ${body.length} bytes; router node args: ${routerNodeArgs.join(' ') || '(none)'}`);
console.log(
  `open loop: ${rates.join(' and ')} req/s for ${seconds}s per run, ${rounds} rounds alternating direct / bare proxy / router${baseline ? ` / baseline router (${baselineDir})` : ''}; latency from scheduled send time`,
);
type Run = Awaited<ReturnType<typeof openLoop>> & { cpuUsPerReq?: number };
const proxies = new Map<string, ChildProcess>([
  [viaBare.name, bare.child],
  [viaRouter.name, router.child],
  ...(baseline && viaBaseline ? ([[viaBaseline.name, baseline.child]] as const) : []),
]);
for (const t of subjects) await openLoop(t, rates[0]!); // warm-up
const results = new Map<string, Run[]>();
for (let i = 0; i < rounds; i++) {
  for (const rate of rates) {
    for (const t of subjects) {
      const child = proxies.get(t.name);
      if (child) await ask(child);
      const r: Run = await openLoop(t, rate);
      if (child) r.cpuUsPerReq = (await ask<{ cpuUs: number }>(child)).cpuUs / (rate * seconds);
      const key = `${t.name}@${rate}`;
      results.set(key, [...(results.get(key) ?? []), r]);
      console.log(
        `  round ${i + 1} ${String(rate).padStart(4)} req/s ${t.name.padEnd(20)} p50 ${r.p50.toFixed(2)} ms  p90 ${r.p90.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  max ${r.max.toFixed(1)} ms  errors ${r.errors}  achieved ${Math.round(r.achieved)} req/s${r.cpuUsPerReq !== undefined ? `  cpu ${r.cpuUsPerReq.toFixed(0)} µs/req` : ''}`,
      );
    }
  }
}
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const med = (name: string, rate: number, key: 'p50' | 'p99' | 'cpuUsPerReq') =>
  median(results.get(`${name}@${rate}`)!.map((r) => r[key]!));
console.log(`\nmedians of ${rounds} rounds (added = through the proxy - direct to the simulator):`);
console.log('| rate | subject | p50 | p99 | added p50 | added p99 | CPU per request |');
console.log('|---|---|---|---|---|---|---|');
for (const rate of rates) {
  for (const t of subjects) {
    const p50 = med(t.name, rate, 'p50');
    const p99 = med(t.name, rate, 'p99');
    const added =
      t === direct
        ? ['', '']
        : [
            `${(p50 - med(direct.name, rate, 'p50')).toFixed(2)} ms`,
            `${(p99 - med(direct.name, rate, 'p99')).toFixed(2)} ms`,
          ];
    const cpu = t === direct ? '' : `${med(t.name, rate, 'cpuUsPerReq').toFixed(0)} µs`;
    console.log(
      `| ${rate} req/s | ${t.name} | ${p50.toFixed(2)} ms | ${p99.toFixed(2)} ms | ${added[0]} | ${added[1]} | ${cpu} |`,
    );
  }
}
// Per-round ratios (router against the bare proxy of the same round), then their median: noise
// that hits one round hits both subjects alike.
for (const rate of rates) {
  const d = results.get(`${direct.name}@${rate}`)!;
  const b = results.get(`${viaBare.name}@${rate}`)!;
  const r = results.get(`${viaRouter.name}@${rate}`)!;
  const cpuRatio = median(r.map((x, i) => x.cpuUsPerReq! / b[i]!.cpuUsPerReq!));
  const p99Ratio = median(r.map((x, i) => Math.max(0.01, x.p99 - d[i]!.p99) / Math.max(0.01, b[i]!.p99 - d[i]!.p99)));
  console.log(
    `${rate} req/s: router / bare proxy, median of per-round ratios: CPU per request ${cpuRatio.toFixed(2)}x (goal <= 1.25x), added p99 ${p99Ratio.toFixed(2)}x${rate === 500 ? ' (goal <= 1.5x)' : ''}`,
  );
  if (viaBaseline) {
    const o = results.get(`${viaBaseline.name}@${rate}`)!;
    const baseRatio = median(o.map((x, i) => x.cpuUsPerReq! / b[i]!.cpuUsPerReq!));
    const change = median(r.map((x, i) => x.cpuUsPerReq! / o[i]!.cpuUsPerReq!));
    console.log(
      `${rate} req/s: baseline router / bare proxy ${baseRatio.toFixed(2)}x; router / baseline router, median of per-round ratios: CPU per request ${change.toFixed(2)}x`,
    );
  }
}

// Throughput: closed loop, as many requests as 50 connections can push.
for (const t of subjects) {
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
baseline?.child.kill('SIGTERM');
if (streams === 0) {
  router.child.kill('SIGTERM');
  bare.child.kill('SIGTERM');
  sim.child.kill('SIGTERM');
  process.exit(0);
}
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
bare.child.kill('SIGTERM');
sim.child.kill('SIGTERM');
