// Side by side, in one process: the per-request engine cost of this checkout against another
// (`--base`, e.g. an export of main), alternating small batches so machine noise hits both alike.
// Reports each subject's median µs per request and the median of the per-round ratios.
//   npx tsx test/bench/engine-compare.ts --base /tmp/main-export [--rounds 40] [--batch 20000]
import { join } from 'node:path';
import { createSimulator } from '../../simulator/index.js';
import { BENCH_REQUESTS, BENCH_SCENARIO } from './servers/bench-scenario.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const base = args.get('base');
if (!base) throw new Error('give --base <path of the checkout to compare against>');
const rounds = Number(args.get('rounds') ?? 40);
const batch = Number(args.get('batch') ?? 20_000);

type Handle = (r: { method: string; url: string; headers: Record<string, string>; body: string }) => {
  onHead(at: number): void;
  onFinish(at: number, o: { aborted: boolean; tokensDelivered: number }): void;
};

const baseSim = (await import(join(base, 'simulator/index.ts'))) as { createSimulator: typeof createSimulator };
const baseBench = (await import(join(base, 'test/bench/servers/bench-scenario.ts'))) as {
  BENCH_SCENARIO: typeof BENCH_SCENARIO;
  BENCH_REQUEST: (typeof BENCH_REQUESTS)['chat'];
};

function subject(name: string, handle: Handle, req: (typeof BENCH_REQUESTS)['chat']) {
  const r = { method: 'POST', url: req.path, headers: req.headers, body: req.body };
  return {
    name,
    times: [] as number[],
    run() {
      const t0 = performance.now();
      for (let i = 0; i < batch; i++) {
        const reply = handle(r);
        reply.onHead(0);
        reply.onFinish(1, { aborted: false, tokensDelivered: 16 });
      }
      this.times.push(((performance.now() - t0) * 1000) / batch);
    },
  };
}

const a = baseSim.createSimulator(baseBench.BENCH_SCENARIO, { seed: 1 });
const b = createSimulator(BENCH_SCENARIO, { seed: 1 });
const subjects = [
  subject('base: openai chat', (r) => a.handle(r), baseBench.BENCH_REQUEST),
  subject('this: openai chat', (r) => b.handle(r), BENCH_REQUESTS.chat),
  subject('this: Responses API', (r) => b.handle(r), BENCH_REQUESTS.responses),
  subject('this: cerebras chat', (r) => b.handle(r), BENCH_REQUESTS.cerebras),
];
for (const s of subjects) for (let i = 0; i < 3; i++) s.run(); // warm-up
for (const s of subjects) s.times.length = 0;
for (let i = 0; i < rounds; i++) for (const s of subjects) s.run();

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const baseTimes = subjects[0]!.times;
console.log(`${rounds} rounds of ${batch} requests each, subjects alternating; µs per request`);
for (const s of subjects) {
  const ratio = median(s.times.map((t, i) => t / baseTimes[i]!));
  console.log(
    `  ${s.name.padEnd(22)} median ${median(s.times).toFixed(2)}  min ${Math.min(...s.times).toFixed(2)}  per-round ratio to base ${ratio.toFixed(3)}`,
  );
}
