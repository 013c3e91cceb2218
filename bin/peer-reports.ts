import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClientOutcome, JudgedCheck } from '../harness/index.js';
import type { LedgerRow } from '../simulator/index.js';

/**
 * A peer's saved verdicts, as `bin/peers.ts` leaves them in `<reports>/run-N/<scenario>/report.json`:
 * each scenario's checks, one list per run (runs 1 to `runs`, or every run folder there is), of
 * `scenarios` only when given (what this invocation played, not an older one's leftovers).
 */
export async function readPeerReports(
  reports: string,
  runs?: number,
  scenarios?: ReadonlySet<string>,
): Promise<Map<string, JudgedCheck[][]>> {
  const out = new Map<string, JudgedCheck[][]>();
  if (!existsSync(reports)) return out;
  const folders = (await readdir(reports))
    .filter((d) => /^run-\d+$/.test(d))
    .sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)))
    .filter((d) => runs === undefined || Number(d.slice(4)) <= runs);
  for (const run of folders)
    for (const scenario of await readdir(join(reports, run))) {
      if (scenarios && !scenarios.has(scenario)) continue;
      const file = join(reports, run, scenario, 'report.json');
      if (!existsSync(file)) continue;
      const report = JSON.parse(await readFile(file, 'utf8')) as { checks: JudgedCheck[] };
      out.set(scenario, [...(out.get(scenario) ?? []), report.checks]);
    }
  return out;
}

/** The ledger rows and the client outcome of one correlation id in a saved run folder (`ledger.jsonl`, `outcomes.jsonl`). */
export async function readAttempts(
  folder: string,
  id: string,
): Promise<{ rows: LedgerRow[]; outcome: ClientOutcome | undefined }> {
  const lines = async (name: string, needle: string) =>
    existsSync(join(folder, name))
      ? (await readFile(join(folder, name), 'utf8')).split('\n').filter((l) => l.includes(needle))
      : [];
  const rows = (await lines('ledger.jsonl', `"correlationId":${JSON.stringify(id)}`)).map(
    (l) => JSON.parse(l) as LedgerRow,
  );
  const outcome = (await lines('outcomes.jsonl', `"id":${JSON.stringify(id)}`))
    .map((l) => JSON.parse(l) as ClientOutcome)
    .find((o) => o.id === id);
  return { rows, outcome };
}
