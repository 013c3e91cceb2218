// Per-request CPU of two parts of a simulated day's request, in the compiled code of one or more
// builds (`npm run build` in each first), alternating builds round by round: the load
// generator's plan of a request (prompt, body, headers) and the simulator's count of its prompt's
// tokens (o200k_base: the correlation marker, new in every request, and the vocabulary's words).
// Prompts are the day's (day-in-the-life.yaml: 10 to 40 tokens), 300 000 requests a round.
//   npx tsx test/bench/day-request-parts.ts --builds /work/main,. [--rounds 5]
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as HarnessApi from '../../harness/index.js';
import type * as PlanApi from '../../harness/load/request-plan.js';
import type * as TokensApi from '../../simulator/engine/tokens.js';

const argv = process.argv.slice(2);
const opt = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const roots = (opt('builds') ?? '.').split(',').map((r) => resolve(r));
const rounds = Number(opt('rounds') ?? 5);
const N = 300_000;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
console.log(`machine: ${cpus().length} × ${cpus()[0]?.model.trim()}; node ${process.version}; load average ${load()}`);

interface Build {
  root: string;
  plan: (n: number) => { body: string };
  count: (text: string) => number;
  planUs: number[];
  countUs: number[];
  /** Tokens counted in all: the same in every build, or one of them miscounts. */
  tokens: number;
}
const builds: Build[] = [];
for (const root of roots) {
  const at = (p: string) => pathToFileURL(join(root, 'dist', p)).href;
  const harness = (await import(at('harness/index.js'))) as typeof HarnessApi;
  const { createRequestPlanner } = (await import(at('harness/load/request-plan.js'))) as typeof PlanApi;
  const { countPromptTokens } = (await import(at('simulator/engine/tokens.js'))) as typeof TokensApi;
  const loaded = await harness.loadRunScenarioFile(join(root, 'scenarios/day-in-the-life.yaml'), {});
  if (!loaded.ok) throw new Error(loaded.report);
  const s = loaded.scenario;
  builds.push({
    root,
    plan: createRequestPlanner(s.load!, s.seed ?? 1, `r${(s.seed ?? 1).toString(36)}`),
    count: (text) => countPromptTokens('openai', text, 1),
    planUs: [],
    countUs: [],
    tokens: 0,
  });
}

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
for (let r = 0; r < rounds; r++) {
  for (const b of builds) {
    // Fresh request numbers every round, as a run's are: the markers are new each time.
    const prompts: string[] = new Array<string>(N);
    let t = cpuUs();
    for (let i = 0; i < N; i++)
      prompts[i] = (
        JSON.parse(b.plan(r * N + i).body) as { messages: Array<{ content: string }> }
      ).messages[0]!.content;
    b.planUs.push((cpuUs() - t) / N); // Includes the JSON.parse of the body, the same for every build.
    t = cpuUs();
    for (let i = 0; i < N; i++) b.tokens += b.count(prompts[i]!);
    b.countUs.push((cpuUs() - t) / N);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const b of builds)
  console.log(
    `${b.root}: plan a request (and parse its body) ${median(b.planUs).toFixed(2)} µs, count its prompt's tokens ${median(b.countUs).toFixed(2)} µs (medians of ${rounds} rounds of ${N}); ${b.tokens} tokens counted`,
  );
console.log(`load average at the end ${load()}`);
