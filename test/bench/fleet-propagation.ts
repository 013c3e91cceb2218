// How long a circuit opened on one replica takes to be honoured by the others: from the opening
// replica's update() to the moment another replica's cache holds the open circuit (what its
// next request decides on), over Redis on loopback, three replicas, each its own process.
//   npm run bench:fleet-propagation -- [--openings 2000] [--gap 5] [--busy 0,2]
// --busy: each replica also keeps its event loop busy that many ms out of every 10: 2 is about what
// serving 500 requests a second costs the reference router here (~400 µs each, BENCHMARKS.md).
import { fork, type ChildProcess } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { startRedisServer } from '../../harness/index.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const openings = Number(args.get('openings') ?? 2000);
const gapMs = Number(args.get('gap') ?? 5);
const busyLevels = (args.get('busy') ?? '0,2').split(',').map(Number);

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function round(url: string, busy: number): Promise<void> {
  const prefix = `bench-propagation:${busy}:`;
  const replicas: ChildProcess[] = [];
  const ready: Array<Promise<void>> = [];
  for (const name of ['a', 'b', 'c']) {
    const child = fork(join(import.meta.dirname, 'servers', 'store-replica.ts'), [url, prefix, name, String(busy)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    replicas.push(child);
    ready.push(new Promise((resolve) => child.once('message', () => resolve())));
  }
  await Promise.all(ready);
  const opened = new Map<string, bigint>();
  const seen = new Map<string, bigint[]>();
  replicas[0]!.on('message', (m: { opened?: string; at: string }) => {
    if (m.opened) opened.set(m.opened, BigInt(m.at));
  });
  for (const r of replicas.slice(1))
    r.on('message', (m: { seen?: string; at: string }) => {
      if (m.seen) seen.set(m.seen, [...(seen.get(m.seen) ?? []), BigInt(m.at)]);
    });
  for (let i = 0; i < openings; i++) {
    replicas[0]!.send({ open: `limit:bench/main/model-${i}` });
    await new Promise((r) => setTimeout(r, gapMs));
  }
  await new Promise((r) => setTimeout(r, 1500));
  const delays: number[] = [];
  let missing = 0;
  for (const [scope, at] of opened) {
    const times = seen.get(scope) ?? [];
    missing += 2 - times.length;
    for (const t of times) delays.push(Number(t - at) / 1e6);
  }
  delays.sort((a, b) => a - b);
  console.log(
    `  replicas busy ${busy} ms of every 10: ${opened.size} openings, ${delays.length} sightings by the 2 other replicas (${missing} missing): p50 ${pct(delays, 50).toFixed(2)} ms, p90 ${pct(delays, 90).toFixed(2)} ms, p99 ${pct(delays, 99).toFixed(2)} ms, max ${delays.at(-1)!.toFixed(2)} ms`,
  );
  for (const r of replicas) r.send({ stop: true });
  await Promise.all(replicas.map((r) => new Promise((resolve) => r.once('exit', resolve))));
}

console.log(
  `machine: ${cpus()[0]!.model}, ${cpus().length} vCPUs, ${Math.round(totalmem() / 2 ** 30)} GiB; node ${process.version}`,
);
console.log(
  `3 replicas (one process each), Redis on loopback; one opens ${openings} circuits, one every ${gapMs} ms; delay from its update() to each other replica's cache`,
);
const redis = await startRedisServer();
try {
  for (const busy of busyLevels) await round(redis.url, busy);
} finally {
  await redis.close();
}
