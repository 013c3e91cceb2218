// Throughput, CPU per request and Redis operations per request of `throttlelab simulate`: one
// process with in-memory quotas, one worker and two workers with quotas shared through Redis
// (issue 26), side by side in one run. All three serve at once and rounds alternate them, so
// machine noise hits all alike; medians are reported. CPU is the whole process tree's (primary,
// workers) from /proc plus redis-server's own (INFO cpu); Redis operations come from INFO
// commandstats, reset before each measured run: EVALSHA calls (round trips) and every command
// the script ran inside Redis, per request answered.
//   npm run bench:simulate-workers -- [--rounds 3] [--seconds 5] [--connections 50]
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { startRedisServer } from '../../harness/index.js';
import { startSimulate, type SimulateProcess } from '../helpers/simulate-workers.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const rounds = Number(args.get('rounds') ?? 3);
const seconds = Number(args.get('seconds') ?? 5);
const connections = Number(args.get('connections') ?? 50);

// Quotas that never bind: every request is decided in full (two limits), none refused. Output
// tokens are not charged after the fact, so each request is exactly one decision.
const SCENARIO = `
version: 1
name: bench-workers
seed: 1
providers:
  - id: openai
    vendor: openai
    models: [gpt-4o-mini]
    keys: [{ id: main, value: sk-bench }]
    accounting: { chargeOutputToTokens: false }
    quotas:
      - { metric: requests, limit: 1000000000, per: 1m }
      - { metric: tokens, limit: 1000000000000, per: 1m }
`;
const BODY = JSON.stringify({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'Say hello.' }],
  max_tokens: 16,
});

/** CPU seconds (user + system) of `pid` and every process below it. */
function treeCpuS(pid: number): number {
  const tick = 100;
  const stats = new Map<number, { ppid: number; cpu: number }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const f = readFileSync(`/proc/${d}/stat`, 'utf8');
      const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(d), { ppid: Number(rest[1]), cpu: (Number(rest[11]) + Number(rest[12])) / tick });
    } catch {
      // gone
    }
  }
  let total = 0;
  const walk = (p: number) => {
    total += stats.get(p)?.cpu ?? 0;
    for (const [c, s] of stats) if (s.ppid === p) walk(c);
  };
  walk(pid);
  return total;
}

async function redisFigures(redis: Redis): Promise<{ cpuS: number; evalsha: number; commands: number }> {
  const cpu = await redis.info('cpu');
  const stats = await redis.info('commandstats');
  const num = (re: RegExp, text: string) => Number(re.exec(text)?.[1] ?? 0);
  let commands = 0;
  for (const m of stats.matchAll(/cmdstat_(\w+):calls=(\d+)/g))
    if (!['info', 'config'].includes(m[1]!)) commands += Number(m[2]);
  return {
    cpuS: num(/used_cpu_user:([\d.]+)/, cpu) + num(/used_cpu_sys:([\d.]+)/, cpu),
    evalsha: num(/cmdstat_evalsha:calls=(\d+)/, stats),
    commands: commands - num(/cmdstat_evalsha:calls=(\d+)/, stats),
  };
}

interface Subject {
  name: string;
  sim: SimulateProcess;
  pid: number;
  usesRedis: boolean;
  rps: number[];
  cpuUs: number[];
  redisUs: number[];
  evalsha: number[];
  commands: number[];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tl-bench-workers-'));
  const file = join(dir, 'bench.yaml');
  await writeFile(file, SCENARIO);
  const server = await startRedisServer();
  const redis = new Redis(server.url);
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}; ${rounds} rounds × ${seconds} s, ${connections} connections`,
  );
  const subjects: Subject[] = [];
  const add = async (name: string, extra: string[], usesRedis: boolean) => {
    const sim = await startSimulate(file, extra);
    subjects.push({ name, sim, pid: sim.pid, usesRedis, rps: [], cpuUs: [], redisUs: [], evalsha: [], commands: [] });
  };
  try {
    await add('1 process, in-memory quotas', [], false);
    await add('1 worker, Redis quotas', ['--workers', '1', '--redis-url', server.url], true);
    await add('2 workers, Redis quotas', ['--workers', '2', '--redis-url', server.url], true);
    for (let round = 0; round <= rounds; round++) {
      for (const s of subjects) {
        const url = `http://127.0.0.1:${s.sim.port}/openai/v1/chat/completions`;
        const headers = { authorization: 'Bearer sk-bench', 'content-type': 'application/json' };
        await redis.config('RESETSTAT');
        const before = { cpu: treeCpuS(s.pid), redis: await redisFigures(redis) };
        const r = await autocannon({
          url,
          method: 'POST',
          headers,
          body: BODY,
          connections,
          duration: round === 0 ? 2 : seconds,
        });
        const after = { cpu: treeCpuS(s.pid), redis: await redisFigures(redis) };
        const n = r.requests.total;
        const redisCpu = s.usesRedis ? after.redis.cpuS - before.redis.cpuS : 0;
        const cpuUs = ((after.cpu - before.cpu + redisCpu) * 1e6) / n;
        const line = `  ${s.name.padEnd(30)} ${String(Math.round(r.requests.average)).padStart(6)} req/s  p99 ${r.latency.p99} ms  ${cpuUs.toFixed(1)} µs CPU/req (Redis ${((redisCpu * 1e6) / n).toFixed(1)})  ${(after.redis.evalsha / n).toFixed(3)} EVALSHA/req  ${(after.redis.commands / n).toFixed(2)} commands in Redis/req  non-2xx ${r.non2xx}`;
        if (round === 0) continue; // warm-up
        console.log(`round ${round}${line}`);
        s.rps.push(r.requests.average);
        s.cpuUs.push(cpuUs);
        s.redisUs.push((redisCpu * 1e6) / n);
        s.evalsha.push(after.redis.evalsha / n);
        s.commands.push(after.redis.commands / n);
      }
    }
    console.log(
      '\n| subject | median req/s | CPU per request (all processes, Redis included) | of which redis-server | EVALSHA per request | commands inside Redis per request |',
    );
    console.log('|---|---|---|---|---|---|');
    for (const s of subjects)
      console.log(
        `| ${s.name} | ${Math.round(median(s.rps))} | ${median(s.cpuUs).toFixed(1)} µs | ${median(s.redisUs).toFixed(1)} µs | ${median(s.evalsha).toFixed(3)} | ${median(s.commands).toFixed(2)} |`,
      );
    const [mem, one, two] = subjects.map((s) => median(s.rps));
    console.log(
      `\nratios: 1 worker Redis / in-memory ${(one! / mem!).toFixed(2)}; 2 workers / 1 worker (Redis) ${(two! / one!).toFixed(2)}; 2 workers Redis / in-memory ${(two! / mem!).toFixed(2)}`,
    );
  } finally {
    for (const s of subjects) await s.sim.stop();
    redis.disconnect();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
