// The reference router against Portkey's gateway (@portkey-ai/gateway, installed into a scratch
// folder, bound to 127.0.0.1) behind the same simulator, driven by the same open-loop generator,
// alternating round by round: added p50/p99 at each rate, CPU per request, closed-loop req/s and
// idle RSS. The router runs as it is deployed: `node dist/bin/throttlelab.js router`.
//   npm run bench:peers -- [--rates 200,500] [--seconds 8] [--rounds 3]
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { median, openLoop, type OpenLoopResult, type Target } from './open-loop.js';
import { installPortkey, PORTKEY_VERSION } from './peers/install-portkey.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const rates = (args.get('rates') ?? '200,500').split(',').map(Number);
const seconds = Number(args.get('seconds') ?? 8);
const rounds = Number(args.get('rounds') ?? 3);
const ROOT = join(import.meta.dirname, '..', '..');

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

/** A child process, started and waited for until `ready` appears on its output (returned with it). */
function launch(
  cmd: string,
  argv: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const on = (d: Buffer) => {
      out += String(d);
      const match = ready.exec(out);
      if (match) resolve({ child, match });
    };
    child.stdout!.on('data', on);
    child.stderr!.on('data', on);
    child.once('exit', (code) => reject(new Error(`${argv.join(' ')} exited with ${code}:\n${out}`)));
  });
}
const children: ChildProcess[] = [];
const stopAll = () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
};
process.on('exit', stopAll);

/** Resident memory (bytes) and CPU time (µs) of a process, read from /proc. */
function usage(pid: number): { rss: number; cpuUs: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = Number(/VmRSS:\s+(\d+)/.exec(status)![1]) * 1024;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime, at 100 a second
  return { rss, cpuUs: ticks * 10_000 };
}

// The simulator: the benchmark scenario (openai profile, no latency, quotas that never bind).
const sim = await launch(
  process.execPath,
  ['--import', 'tsx', join(ROOT, 'test/bench/servers/sim-server.ts')],
  {},
  /"port":(\d+)/,
);
const simOrigin = `http://127.0.0.1:${sim.match[1]}`;

// The reference router, from the built CLI, with a config file as a user writes it.
const dir = await mkdtemp(join(tmpdir(), 'throttlelab-peers-'));
const config = join(dir, 'router.yaml');
await writeFile(
  config,
  `version: 1
providers:
  - id: openai
    vendor: openai
    baseUrl: ${simOrigin}/openai/v1
    keys: [{ id: main, env: BENCH_KEY }]
    models: [gpt-4o-mini]
deadline: { default: 60s }
`,
);
const routerPort = await freePort();
const router = await launch(
  process.execPath,
  [join(ROOT, 'dist/bin/throttlelab.js'), 'router', '--config', config, '--port', String(routerPort), '--seed', '1'],
  { BENCH_KEY: 'sk-bench' },
  /listening on/,
);

// Portkey, as its README starts it, bound to loopback, its UI off.
const portkey = await installPortkey();
const portkeyPort = await freePort();
const peer = await launch(
  process.execPath,
  portkey.argv(portkeyPort),
  { NODE_ENV: 'production' },
  /Ready for connections|running at/,
);

const ask = 'Write one sentence about rate limits.';
const body = (model: string) => JSON.stringify({ model, messages: [{ role: 'user', content: ask }], max_tokens: 64 });
const direct: Target = {
  name: 'direct to simulator',
  origin: simOrigin,
  path: '/openai/v1/chat/completions',
  headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
  body: body('gpt-4o-mini'),
};
const reference: Target = {
  name: 'reference router',
  origin: `http://127.0.0.1:${routerPort}`,
  path: '/v1/chat/completions',
  headers: { 'content-type': 'application/json' },
  body: body('openai/gpt-4o-mini'),
};
const portkeyTarget: Target = {
  name: `Portkey ${PORTKEY_VERSION}`,
  origin: `http://127.0.0.1:${portkeyPort}`,
  path: '/v1/chat/completions',
  headers: {
    'content-type': 'application/json',
    authorization: 'Bearer sk-bench',
    'x-portkey-provider': 'openai',
    'x-portkey-custom-host': `${simOrigin}/openai/v1`,
  },
  body: body('gpt-4o-mini'),
};
const pids = new Map<string, number>([
  [reference.name, router.child.pid!],
  [portkeyTarget.name, peer.child.pid!],
]);

// Each answers once (a failing setup says so now), then idle RSS after a settle.
for (const t of [direct, reference, portkeyTarget]) {
  const res = await fetch(t.origin + t.path, { method: 'POST', headers: t.headers, body: t.body });
  if (res.status !== 200) throw new Error(`${t.name} answered ${res.status}: ${await res.text()}`);
  await res.text();
}
// The first request compiles undici's HTTP parser (tens of MiB, given back within seconds).
await new Promise((r) => setTimeout(r, 6000));
const idle = new Map([...pids].map(([name, pid]) => [name, usage(pid).rss]));

const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
console.log(
  `machine: ${cpus()[0]!.model}, ${cpus().length} vCPUs, ${Math.round(totalmem() / 2 ** 30)} GiB; node ${process.version}; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; generator, routers and simulator share the machine`,
);
console.log(
  `open loop: ${rates.join(' and ')} req/s for ${seconds}s per run, ${rounds} rounds alternating direct / reference / Portkey`,
);
const subjects = [direct, reference, portkeyTarget];
for (const t of subjects) await openLoop(t, rates[0]!, 2); // warm-up
type Run = OpenLoopResult & { cpuUsPerReq?: number };
const results = new Map<string, Run[]>();
for (let i = 0; i < rounds; i++) {
  for (const rate of rates) {
    for (const t of subjects) {
      const pid = pids.get(t.name);
      const before = pid ? usage(pid).cpuUs : 0;
      const r: Run = await openLoop(t, rate, seconds);
      if (pid) r.cpuUsPerReq = (usage(pid).cpuUs - before) / (rate * seconds);
      const key = `${t.name}@${rate}`;
      results.set(key, [...(results.get(key) ?? []), r]);
      console.log(
        `  round ${i + 1} ${String(rate).padStart(4)} req/s ${t.name.padEnd(20)} p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  errors ${r.errors}  achieved ${Math.round(r.achieved)} req/s${r.cpuUsPerReq !== undefined ? `  cpu ${r.cpuUsPerReq.toFixed(0)} µs/req` : ''}`,
      );
    }
  }
}

// Closed loop: 50 connections for 5 s each, alternating, 3 rounds.
const closed = new Map<string, number[]>();
for (let i = 0; i < 3; i++) {
  for (const t of [reference, portkeyTarget]) {
    const r = await autocannon({
      url: t.origin + t.path,
      method: 'POST',
      headers: t.headers,
      body: t.body,
      connections: 50,
      duration: 5,
    });
    closed.set(t.name, [...(closed.get(t.name) ?? []), r.requests.average]);
    console.log(
      `  closed loop round ${i + 1} ${t.name.padEnd(20)} ${Math.round(r.requests.average)} req/s (${r.non2xx} non-2xx)`,
    );
  }
}

const med = (name: string, rate: number, key: 'p50' | 'p99' | 'cpuUsPerReq') =>
  median(results.get(`${name}@${rate}`)!.map((r) => r[key]!));
console.log(`\nmedians of ${rounds} rounds (added = through the router - direct to the simulator):\n`);
console.log('| | reference router | Portkey | reference / Portkey |');
console.log('|---|---|---|---|');
const row = (label: string, a: number, b: number, unit: string, digits = 2) =>
  console.log(`| ${label} | ${a.toFixed(digits)} ${unit} | ${b.toFixed(digits)} ${unit} | ${(a / b).toFixed(2)}× |`);
for (const rate of rates) {
  const d50 = med(direct.name, rate, 'p50');
  const d99 = med(direct.name, rate, 'p99');
  row(
    `added p50 at ${rate} req/s`,
    med(reference.name, rate, 'p50') - d50,
    med(portkeyTarget.name, rate, 'p50') - d50,
    'ms',
  );
  row(
    `added p99 at ${rate} req/s`,
    med(reference.name, rate, 'p99') - d99,
    med(portkeyTarget.name, rate, 'p99') - d99,
    'ms',
  );
  row(
    `CPU per request at ${rate} req/s`,
    med(reference.name, rate, 'cpuUsPerReq'),
    med(portkeyTarget.name, rate, 'cpuUsPerReq'),
    'µs',
    0,
  );
}
const ref = median(closed.get(reference.name)!);
const pk = median(closed.get(portkeyTarget.name)!);
row('closed-loop throughput (50 connections)', ref, pk, 'req/s', 0);
// Rounds run back to back, so each round's ratio is the fairer figure on a shared machine.
const perRound = median(closed.get(reference.name)!.map((r, i) => r / closed.get(portkeyTarget.name)![i]!));
const refIdle = idle.get(reference.name)!;
const pkIdle = idle.get(portkeyTarget.name)!;
console.log(`| idle RSS | ${mib(refIdle)} | ${mib(pkIdle)} | ${(refIdle / pkIdle).toFixed(2)}× |`);
console.log(
  `\nclosed-loop throughput: median of per-round ratios ${perRound.toFixed(2)}× Portkey's (goal >= 4×); idle RSS ${(refIdle / pkIdle).toFixed(2)}× (goal <= 1×)`,
);
stopAll();
process.exit(0);
