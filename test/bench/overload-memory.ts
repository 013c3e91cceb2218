// The reference router's memory through an overload: idle RSS, the peak while open-loop load runs
// at 10 times the provider's capacity for 30 s, and RSS once the load has stopped and the
// requests it held are answered (goal: back within 10 % of idle). Also counts how the overload was
// answered: served, shed with 503 + Retry-After (admission.maxWaiting), or anything else.
//   npm run bench:overload-memory -- [--capacity 30] [--factor 10] [--seconds 30] [--settle 20] [--watch 20]
//     [--node-args '--max-semi-space-size=1'] [--router-env MALLOC_ARENA_MAX=2] [--snapshot file]
import { fork, type ChildProcess } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const capacity = Number(args.get('capacity') ?? 30); // requests a second the provider takes
const factor = Number(args.get('factor') ?? 10);
const seconds = Number(args.get('seconds') ?? 30);
const settle = Number(args.get('settle') ?? 20);
// How long RSS is watched after the load (read each second): the time it takes to come back is reported.
const watch = Number(args.get('watch') ?? settle);
const maxWaiting = Number(args.get('max-waiting') ?? 512);
// V8 flags for the router's process, e.g. `--node-args --max-semi-space-size=1` (space-separated).
const nodeArgs = (args.get('node-args') ?? '').split(' ').filter(Boolean);
// Environment for the router's process, e.g. `--router-env MALLOC_ARENA_MAX=2` (comma-separated).
const routerEnv = Object.fromEntries(
  (args.get('router-env') ?? '')
    .split(',')
    .filter(Boolean)
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);

function start(file: string, argv: string[], env: Record<string, string> = {}, execArgv: string[] = []) {
  const child = fork(join(import.meta.dirname, 'servers', file), argv, {
    execArgv: ['--import', 'tsx', ...execArgv],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  return new Promise<{ child: ChildProcess; port: number }>((resolve, reject) => {
    child.stdout!.once('data', (d) => resolve({ child, port: JSON.parse(String(d)).port }));
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
}
type Mem = {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  spaces: Record<string, { size: number; used: number }>;
};
const stats = (child: ChildProcess, msg: 'stats' | 'gc' | { snapshot: string } = 'stats') =>
  new Promise<Mem>((resolve) => {
    child.once('message', (m) => resolve(m as Mem));
    child.send(msg);
  });
const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;
const rows: [string, Mem][] = [];
// One row per reading: where the resident memory is (V8's heap by space, buffers outside it, the rest).
const table = () => {
  const cols = [
    'rss',
    'heapTotal',
    'heapUsed',
    'new space',
    'old space',
    'code+other',
    'external',
    'arrayBuffers',
    'rss − heapTotal',
  ];
  console.log(`| reading | ${cols.join(' | ')} |\n|---|${cols.map(() => '---|').join('')}`);
  for (const [name, m] of rows) {
    const young = m.spaces.new_space?.size ?? 0;
    const old = m.spaces.old_space?.size ?? 0;
    const values = [
      m.rss,
      m.heapTotal,
      m.heapUsed,
      young,
      old,
      m.heapTotal - young - old,
      m.external,
      m.arrayBuffers,
      m.rss - m.heapTotal,
    ];
    console.log(`| ${name} | ${values.map((v) => (v / 2 ** 20).toFixed(1)).join(' | ')} |`);
  }
};

const sim = await start('sim-server-limited.ts', [String(capacity * 60)]);
const config = {
  version: 1,
  providers: [
    {
      id: 'openai',
      vendor: 'openai',
      baseUrl: `http://127.0.0.1:${sim.port}/openai/v1`,
      keys: [{ id: 'main', env: 'BENCH_KEY' }],
      models: ['gpt-4o-mini'],
    },
  ],
  admission: { maxWaiting },
  deadline: { default: '10s' },
};
const router = await start('router-server.ts', [JSON.stringify(config)], { BENCH_KEY: 'sk-bench', ...routerEnv }, [
  '--expose-gc',
  ...nodeArgs,
]);
const origin = `http://127.0.0.1:${router.port}`;
const body = JSON.stringify({
  model: 'openai/gpt-4o-mini',
  messages: [{ role: 'user', content: 'Write one sentence about rate limits.' }],
  max_tokens: 64,
});
let pool = new Pool(origin, { connections: 4096, pipelining: 1 });
const send = async () => {
  const res = await pool.request({
    path: '/v1/chat/completions',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  await res.body.text();
  return { status: res.statusCode, retryAfter: res.headers['retry-after'] };
};

console.log(
  `machine: ${cpus()[0]!.model}, ${cpus().length} vCPUs, ${Math.round(totalmem() / 2 ** 30)} GiB; node ${process.version}; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
// Warm: a few seconds at capacity, then settle; idle is read the same way as the end.
for (let i = 0; i < capacity * 3; i++) {
  await send();
  await new Promise((r) => setTimeout(r, 1000 / capacity));
}
await pool.close();
pool = new Pool(origin, { connections: 4096, pipelining: 1 });
await new Promise((r) => setTimeout(r, settle * 1000));
const idle = await stats(router.child);
rows.push(['idle', idle]);
console.log(
  `idle (after ${capacity * 3} requests at capacity and ${settle} s): rss ${mib(idle.rss)}, heap ${mib(idle.heapUsed)}`,
);

const rate = capacity * factor;
const counts = new Map<string, number>();
let peak = idle;
const sampler = setInterval(() => void stats(router.child).then((m) => (peak = m.rss > peak.rss ? m : peak)), 1000);
const t0 = performance.now();
const inflight: Promise<void>[] = [];
for (let i = 0; i < rate * seconds; i++) {
  const delay = t0 + (i * 1000) / rate - performance.now();
  if (delay > 1) await new Promise((r) => setTimeout(r, delay));
  inflight.push(
    send().then(
      (r) => {
        const key =
          r.status === 503 ? (r.retryAfter ? '503 with Retry-After' : '503 without Retry-After') : String(r.status);
        counts.set(key, (counts.get(key) ?? 0) + 1);
      },
      (e: Error & { code?: string }) => {
        const key = `connection error (${e.code ?? e.message})`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      },
    ),
  );
}
await Promise.all(inflight);
clearInterval(sampler);
const during = await stats(router.child);
peak = during.rss > peak.rss ? during : peak;
rows.push(['peak during the overload', peak], ['load stopped, answers done', during]);
console.log(
  `overload: ${rate} req/s (${factor}× the provider's ${capacity} req/s) for ${seconds} s, achieved ${Math.round((rate * seconds) / ((performance.now() - t0) / 1000))} req/s; answers: ${[
    ...counts,
  ]
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ')}`,
);
console.log(`peak rss during overload ${mib(peak.rss)}`);
// The clients leave: their keep-alive connections close, as the warm-up's did before idle was read.
await pool.close();
const stopped = performance.now();
let backAfter: number | undefined;
let after = during;
while (performance.now() - stopped < watch * 1000) {
  await new Promise((r) => setTimeout(r, 1000));
  after = await stats(router.child);
  if (backAfter === undefined && after.rss <= idle.rss * 1.1) backAfter = (performance.now() - stopped) / 1000;
}
console.log(
  backAfter === undefined
    ? `rss not back within 10 % of idle in the ${watch} s watched`
    : `rss back within 10 % of idle ${backAfter.toFixed(0)} s after the load stopped`,
);
const afterGc = await stats(router.child, 'gc');
rows.push([`${watch} s after`, after], ['then a forced GC', afterGc]);
console.log(
  `after ${watch} s: rss ${mib(after.rss)} (${((after.rss / idle.rss - 1) * 100).toFixed(1)} % against idle; goal within 10 %), heap ${mib(after.heapUsed)}; after a forced GC: rss ${mib(afterGc.rss)} (${((afterGc.rss / idle.rss - 1) * 100).toFixed(1)} %), heap ${mib(afterGc.heapUsed)}`,
);
console.log(
  `MiB; node args for the router: ${nodeArgs.join(' ') || '(none)'}; environment: ${args.get('router-env') ?? '(none)'}`,
);
table();
const snapshot = args.get('snapshot');
if (snapshot) {
  await stats(router.child, { snapshot });
  console.log(`heap snapshot written to ${snapshot}`);
}
router.child.kill('SIGTERM');
sim.child.kill('SIGTERM');
