// The breaker rule's fast path in learnFromAttempt (a plain success with no probe lease, taken
// without building a decision) against the same success decided by decideCircuits and applied:
// CPU per learned attempt, alternating rounds, on a memory-store CircuitBook with closed circuits.
//   npx tsx test/bench/learn-fast-path.ts [--rounds 7] [--n 2000000]
import { CircuitBook } from '../../router/core/circuit-book.js';
import { decideCircuits } from '../../router/core/circuit-policy.js';
import { Ewma } from '../../router/core/ewma.js';
import { learnFromAttempt, type LearnContext } from '../../router/engine/learn.js';
import { Meter } from '../../router/engine/meter.js';
import type { AttemptResult } from '../../router/engine/attempt.js';
import type { TargetRuntime } from '../../router/engine/target.js';
import { createMemoryStore } from '../../router/state/memory-store.js';

const argv = process.argv.slice(2);
const opt = (name: string, fallback: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const rounds = opt('rounds', 7);
const n = opt('n', 2_000_000);

const breaker = {
  openForMs: 2000,
  quotaOpenForMs: 3_600_000,
  rejectedOpenForMs: 3_600_000,
  maxOpenForMs: 90_000_000,
  maxBackoffOpenForMs: 8000,
  floorMs: 100,
};
const options = {
  failureThreshold: 3,
  openMs: 2000,
  maxOpenMs: 86_400_000,
  maxBackoffMs: 8000,
  jitterRatio: 0,
  probeLeaseMs: 5000,
};
const ctx = (): LearnContext => ({
  circuits: new CircuitBook(createMemoryStore(), options, { next: () => 0 }),
  breaker,
  reliability: new Map([['p', new Ewma()]]),
  meter: new Meter(),
});
const target = {
  id: 'p/k/m',
  provider: 'p',
  providerScope: 'provider:p',
  keyScope: 'key:p/k',
  limitScope: 'limit:p/k/m',
  ttft: new Ewma(),
  latency: new Ewma(),
  disabledUntil: 0,
} as unknown as TargetRuntime;
const pick = { target, probes: [] as string[] };
const ok = { kind: 'ok', status: 200 } as const;
const result: AttemptResult = {
  kind: 'json',
  body: '',
  usage: { promptTokens: 1, completionTokens: 1, estimated: false },
  endedAt: 5,
  firstByteAt: 2,
};

// learnFromAttempt with its fast path removed: every outcome through decideCircuits.
function learnWithoutFastPath(c: LearnContext, now: number): void {
  const decision = decideCircuits({
    outcome: ok,
    scopes: target,
    probes: pick.probes,
    breaker: c.breaker,
    now,
    providerCircuit: c.circuits.get(target.providerScope),
  });
  if (decision.reliability !== undefined) c.reliability.get(target.provider)!.add(decision.reliability);
  if (decision.disableTargetUntil !== undefined) target.disabledUntil = decision.disableTargetUntil;
  c.circuits.apply(decision.ops, now);
  target.ttft.add(result.kind === 'json' ? result.firstByteAt : 0);
  target.latency.add(result.kind === 'json' ? result.endedAt : 0);
}

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const variants = {
  fast: (c: LearnContext, i: number) => learnFromAttempt(c, pick, ok, result, 0, i),
  decided: (c: LearnContext, i: number) => learnWithoutFastPath(c, i),
};
const ns: Record<string, number[]> = { fast: [], decided: [] };
for (let r = 0; r < rounds + 1; r++) {
  for (const [name, run] of r % 2 ? Object.entries(variants).reverse() : Object.entries(variants)) {
    const c = ctx();
    const t0 = cpu();
    for (let i = 0; i < n; i++) run(c, i);
    // The first round warms both up.
    if (r > 0) ns[name]!.push(((cpu() - t0) * 1e6) / n);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [name, xs] of Object.entries(ns))
  console.log(
    `${name.padEnd(8)} median ${median(xs).toFixed(1)} ns per attempt (rounds: ${xs.map((x) => x.toFixed(1)).join(', ')})`,
  );
