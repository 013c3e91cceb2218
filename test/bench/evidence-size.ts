// The evidence a run folder holds, file by file, and the folders side by side: to compare what
// `--evidence full` (gzip from 100 000 lines), `--evidence summary` and a run before gzip keep.
// Make the folders with the CLI, then:
//   npm run bench:evidence-size -- /tmp/day/before /tmp/day/after-full /tmp/day/after-summary
import { readdirSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

const dirs = process.argv.slice(2);
if (dirs.length === 0) throw new Error('usage: evidence-size <run folder>...');
const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
const evidence = (name: string) => /^(ledger|outcomes)\.jsonl(\.gz)?$/.test(name);

console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, node ${process.version}`);
const totals: Array<[string, number, number]> = [];
for (const dir of dirs) {
  let kept = 0;
  let all = 0;
  console.log(dir);
  for (const name of readdirSync(dir).sort()) {
    const size = statSync(join(dir, name)).size;
    all += size;
    if (evidence(name)) kept += size;
    console.log(`  ${name.padEnd(20)} ${mb(size).padStart(10)}${evidence(name) ? '  (evidence)' : ''}`);
  }
  totals.push([dir, kept, all]);
}
const base = totals[0]![1];
console.log('\nfolder | evidence (JSONL) | whole folder | evidence vs the first');
for (const [dir, kept, all] of totals)
  console.log(`${dir} | ${mb(kept)} | ${mb(all)} | ${kept ? `1/${(base / kept).toFixed(1)}` : 'none'}`);
