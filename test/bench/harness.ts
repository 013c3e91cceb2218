// Is the harness ever the bottleneck? Two figures:
//  1. the request rate the open-loop load generator sustains against the bare simulator (and a
//     bare node:http server returning the same body, side by side) at rising target rates;
//  2. how long the checks take over a million ledger rows.
//   npm run bench:harness -- [--seconds 5] [--rates 500,1000,2000,3000] [--rows 1000000]
// The simulator and the bare server run in child processes; the load generator in this one.
import { fork, type ChildProcess } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { CHECKS, runChecks } from '../../harness/checks/run-checks.js';
import { systemClock } from '../../simulator/index.js';
import type { LedgerRow } from '../../simulator/ledger/ledger-row.js';
import type { ClientOutcome } from '../../harness/load/client-outcome.js';
import { runOpenLoop } from '../../harness/load/open-loop.js';
import { createRequestPlanner } from '../../harness/load/request-plan.js';
import { parseRunScenario as parseScenario } from '../../harness/scenario/parse-run-scenario.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const seconds = Number(args.get('seconds') ?? 5);
const rates = (args.get('rates') ?? '500,1000,2000,3000').split(',').filter(Boolean).map(Number);
const rowCount = Number(args.get('rows') ?? 1_000_000);

function start(file: string, argv: string[] = []): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(join(import.meta.dirname, 'servers', file), argv, {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (d) => resolve({ child, port: JSON.parse(String(d)).port }));
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
}

const scenario = (extra: string) => {
  const r = parseScenario(`version: 1
name: bench-harness
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-bench }], quotas: [{ metric: requests, limit: 1000000000, per: 1m }] }
${extra}`);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.scenario;
};

const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;

async function drive(name: string, origin: string, rate: number) {
  const s = scenario(
    `load: { mode: open, duration: ${seconds}s, rate: ${rate}, maxInFlight: 2000, routerToken: sk-bench, requests: { models: [gpt-4o-mini], promptTokens: 20, maxTokens: 64, deadline: 10s } }`,
  );
  const plan = createRequestPlanner(s.load!, 1, 'b');
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const { outcomes, dropped } = await runOpenLoop(s.load!, { baseUrl: `${origin}/openai/v1` }, plan, systemClock);
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const ok = outcomes.filter((o) => o.status === 200).length;
  const lat = outcomes.map((o) => o.endAt - o.scheduledAt).sort((a, b) => a - b);
  const late = outcomes.map((o) => o.sentAt - o.scheduledAt).sort((a, b) => a - b);
  return {
    name,
    rate,
    achieved: ok / seconds,
    ok,
    dropped,
    errors: outcomes.length - ok,
    p50: pct(lat, 50),
    p99: pct(lat, 99),
    sendLagP99: pct(late, 99),
    loadCpu: (cpu.user + cpu.system) / 1e6 / wall,
  };
}

async function main() {
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model}, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`,
  );
  if (rates.length > 0) await loadGenerator();
  await checksOverRows();
}

async function loadGenerator() {
  console.log(`\n1. open-loop load generator, ${seconds} s per step (latency from each request's scheduled send time)`);
  console.log(
    'target          rate  achieved   ok      dropped  errors  p50 ms  p99 ms  send lag p99 ms  load-gen CPU',
  );
  const sim = await start('sim-server.ts');
  const bare = await start('bare-server.ts', [
    JSON.stringify({
      id: 'chatcmpl-bench',
      object: 'chat.completion',
      created: 0,
      model: 'gpt-4o-mini',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Rate limits are a fact of life.' }, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 },
    }),
  ]);
  try {
    for (const rate of rates) {
      for (const [name, port] of [
        ['bare node:http', bare.port],
        ['simulator', sim.port],
      ] as const) {
        const r = await drive(name, `http://127.0.0.1:${port}`, rate);
        console.log(
          `${r.name.padEnd(14)} ${String(r.rate).padStart(5)}  ${r.achieved.toFixed(0).padStart(8)}  ${String(r.ok).padStart(6)}  ${String(r.dropped).padStart(7)}  ${String(r.errors).padStart(6)}  ${r.p50.toFixed(1).padStart(6)}  ${r.p99.toFixed(1).padStart(6)}  ${r.sendLagP99.toFixed(1).padStart(15)}  ${(r.loadCpu * 100).toFixed(0).padStart(10)} %`,
        );
      }
    }
  } finally {
    sim.child.kill('SIGTERM');
    bare.child.kill('SIGTERM');
  }
}

async function checksOverRows() {
  console.log(
    `\n2. every check over ${rowCount.toLocaleString('en')} ledger rows (${(rowCount / 2).toLocaleString('en')} client requests, two attempts each; 1 in 10 a hinted 429)`,
  );
  const s =
    scenario(`faults: [{ id: f, kind: status, at: 0s, for: 1s, match: { provider: openai, everyNth: 50 }, status: 500 }]
load: { mode: open, duration: 60s, rate: 10 }`);
  const T0 = 1_800_000_000_000;
  const rows: LedgerRow[] = [];
  const outcomes: ClientOutcome[] = [];
  for (let i = 0; i < rowCount; i++) {
    const req = i >> 1;
    const at = T0 + req * 2 + (i & 1);
    const limited = i % 10 === 0;
    rows.push({
      seq: i,
      arrivalAt: at,
      firstByteAt: at + 0.5,
      endAt: at + 1,
      provider: 'openai',
      vendor: 'openai',
      key: 'main',
      model: i % 3 === 0 ? 'gpt-4o' : 'gpt-4o-mini',
      endpoint: 'chat',
      correlationId: `b-${req}`,
      sdkRetryCount: null,
      stream: i % 4 === 0,
      status: limited ? 429 : 200,
      errorType: limited ? 'rate_limit_exceeded' : null,
      hintMs: limited ? 1 : null,
      hintForm: limited ? 'seconds' : null,
      quota: { requestsBefore: 10, requestsAfter: 9, tokensBefore: null, tokensAfter: null, emptyForMs: 0 },
      tokensIn: 20,
      tokensOut: 8,
      faults: [],
      end: 'complete',
      contentDigest: null,
      contentChars: null,
      carried: [],
    });
    if ((i & 1) === 1)
      outcomes.push({
        id: `b-${req}`,
        model: 'auto',
        stream: false,
        deadlineMs: 5000,
        scheduledAt: at - 1,
        sentAt: at - 1,
        firstByteAt: at + 2,
        firstContentAt: null,
        endAt: at + 2,
        status: 200,
        error: null,
        streamEnd: null,
        usage: { prompt: 20, completion: 8 },
        servedBy: null,
        retryAfter: null,
      });
  }
  const timings: number[] = [];
  let checks: ReturnType<typeof runChecks> = [];
  for (let round = 0; round < 3; round++) {
    const t = performance.now();
    checks = runChecks({ outcomes, rows, scenario: s, startedAt: T0 });
    timings.push(performance.now() - t);
  }
  timings.sort((a, b) => a - b);
  console.log(
    `all 11 checks: median ${(timings[1]! / 1000).toFixed(2)} s over 3 rounds (min ${(timings[0]! / 1000).toFixed(2)} s, max ${(timings[2]! / 1000).toFixed(2)} s)`,
  );
  const each = Object.entries(CHECKS).map(([id, check]) => {
    const t = performance.now();
    check({ outcomes, rows, scenario: s, startedAt: T0 });
    return `${id} ${((performance.now() - t) / 1000).toFixed(2)} s`;
  });
  console.log(`each, one round: ${each.join(', ')}`);
  console.log(`verdicts: ${checks.map((c) => `${c.id}=${c.verdict}`).join(' ')}`);
  console.log(
    `heap after: ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB (the rows as objects, as runChecks receives them)`,
  );
}

await main();
