// In-process cost of answering one request (sim.handle plus reply bookkeeping), no sockets:
// the part of the simulator's per-request CPU that its own code controls.
//   npm run bench:engine -- [--runs 7] [--requests 100000] [--target chat|responses|cerebras]
import { createSimulator } from '../../simulator/index.js';
import { benchRequest, BENCH_SCENARIO } from './servers/bench-scenario.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const runs = Number(args.get('runs') ?? 7);
const n = Number(args.get('requests') ?? 100_000);

const BENCH_REQUEST = benchRequest(process.argv);
const sim = createSimulator(BENCH_SCENARIO, { seed: 1 });
const req = { method: 'POST', url: BENCH_REQUEST.path, headers: BENCH_REQUEST.headers, body: BENCH_REQUEST.body };
const results: number[] = [];
for (let r = 0; r < runs + 1; r++) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const reply = sim.handle(req);
    reply.onHead(0);
    reply.onFinish(1, { aborted: false, tokensDelivered: 16 });
  }
  if (r > 0) results.push(((performance.now() - t0) * 1000) / n);
}
results.sort((a, b) => a - b);
console.log(
  `engine (${BENCH_REQUEST.path}): ${results[Math.floor(results.length / 2)]!.toFixed(2)} µs per request (median of ${runs} runs of ${n}; min ${results[0]!.toFixed(2)}, max ${results.at(-1)!.toFixed(2)})`,
);
