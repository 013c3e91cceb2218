// CPU of cache affinity's prefix keys for one agent-sized conversation, in process: `prefixKeys`
// (router/engine/prefix-keys.ts) on the --body-kb conversation of bench:router (turns of about
// 1 KiB, alternating user and assistant), alternating with another checkout's when given.
//   npx tsx test/bench/prefix-keys.ts [--body-kb 64] [--rounds 5] [--baseline /path/to/checkout]
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const bodyKb = Number(args.get('body-kb') ?? 64);
const rounds = Number(args.get('rounds') ?? 5);
const baseline = args.get('baseline');

type PrefixKeys = (req: unknown, minTokens: number) => unknown[];
const load = async (dir: string): Promise<PrefixKeys> => {
  // The hasher's wasm is loaded on first use (a checkout from before that loads it on import).
  const hasher = (await import(join(dir, 'router/engine/prefix-hasher.ts'))) as {
    loadPrefixHasher?: () => Promise<void>;
  };
  await hasher.loadPrefixHasher?.();
  return ((await import(join(dir, 'router/engine/prefix-keys.ts'))) as { prefixKeys: PrefixKeys }).prefixKeys;
};
const subjects: Array<[string, PrefixKeys]> = [['this checkout', await load(join(import.meta.dirname, '../..'))]];
if (baseline) subjects.push([`baseline (${baseline})`, await load(baseline)]);

// Parsed from text, as the router has it (flat strings, not the ropes a template builds).
const history = Array.from({ length: bodyKb }, (_, i) => ({
  role: i % 2 === 0 ? 'user' : 'assistant',
  content: `Turn ${i}: ${'rate limits and retries, '.repeat(40)}`,
}));
const text = JSON.stringify({
  model: 'openai/gpt-4o-mini',
  messages: [...history, { role: 'user', content: 'Write one sentence about rate limits.' }],
});
const req: unknown = JSON.parse(text);

function cpuUsPerCall(f: PrefixKeys): number {
  for (let i = 0; i < 1000; i++) f(req, 1024);
  const n = 4000;
  const t = process.cpuUsage();
  for (let i = 0; i < n; i++) f(req, 1024);
  const u = process.cpuUsage(t);
  return (u.user + u.system) / n;
}

console.log(
  `machine: ${cpus()[0]!.model}, ${cpus().length} vCPUs; node ${process.version}; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} (shared machine)`,
);
console.log(`prompt ${text.length} characters, ${bodyKb + 1} messages; ${rounds} rounds alternating subjects`);
const results = new Map<string, number[]>(subjects.map(([name]) => [name, []]));
for (let r = 0; r < rounds; r++) for (const [name, f] of subjects) results.get(name)!.push(cpuUsPerCall(f));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [name, xs] of results)
  console.log(
    `${name}: prefixKeys ${median(xs).toFixed(1)} µs CPU per request (median; ${xs.map((x) => x.toFixed(1)).join(', ')})`,
  );
