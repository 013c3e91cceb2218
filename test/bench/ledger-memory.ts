// Memory and time per ledger row: records N attempts with realistic fields (unique correlation
// ids, a few providers, keys, models and statuses), then reports heap + array-buffer growth.
// Run with the GC exposed so that the figures are after collection:
//   npm run bench:ledger -- [--rows 1000000]
import { cpus } from 'node:os';
import { Ledger } from '../../simulator/index.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const rows = Number(args.get('rows') ?? 1_000_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('Run with --expose-gc (npm run bench:ledger does).');

const used = () => {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

const providers = ['openai', 'anthropic', 'gemini', 'azure'];
const models = ['gpt-4o-mini', 'claude-haiku-4-5', 'gemini-2.5-flash', 'gpt-4o'];
const before = used();
const ledger = new Ledger({ maxRows: rows });
const t0 = performance.now();
for (let i = 0; i < rows; i++) {
  const p = i % 4;
  const seq = ledger.begin({
    arrivalAt: 1.8e12 + i * 0.37,
    provider: providers[p]!,
    vendor: providers[p]!,
    key: i % 7 === 0 ? 'backup' : 'main',
    endpoint: 'chat',
    model: models[p]!,
    correlationId: `req-${i.toString(36)}-${(i * 2654435761) % 1e9}`,
    sdkRetryCount: i % 5 === 0 ? 1 : null,
    stream: i % 2 === 0,
  });
  ledger.plan(seq, {
    status: i % 11 === 0 ? 429 : 200,
    errorType: i % 11 === 0 ? 'rate_limit_error' : null,
    hintMs: i % 11 === 0 ? 1000 : null,
    hintForm: i % 11 === 0 ? 'seconds' : null,
    requestsBefore: 100,
    requestsAfter: 99,
    tokensBefore: 5000,
    tokensAfter: 4900,
    emptyForMs: 0,
    tokensIn: 100,
    tokensOut: 40,
    faults: i % 13 === 0 ? ['storm'] : [],
    end: 'pending',
  });
  ledger.firstByteAt(seq, 1.8e12 + i * 0.37 + 120);
  ledger.finish(seq, 1.8e12 + i * 0.37 + 900, undefined, 40);
}
const elapsed = performance.now() - t0;
const after = used();
const t1 = performance.now();
const q = ledger.query({ provider: 'anthropic', status: 429, limit: 10 });
const queryMs = performance.now() - t1;
console.log(`machine: ${cpus()[0]!.model}, node ${process.version}`);
console.log(`rows: ${ledger.size}`);
console.log(
  `memory: ${((after - before) / 2 ** 20).toFixed(1)} MiB total, ${((after - before) / rows).toFixed(0)} bytes per row (heap + array buffers, after GC)`,
);
console.log(`record: ${((elapsed * 1000) / rows).toFixed(2)} µs per row (begin + plan + firstByte + finish)`);
console.log(`query by provider and status over all rows: ${queryMs.toFixed(1)} ms (${q.total} matches)`);
