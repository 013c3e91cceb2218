import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunScenarioFile as loadScenarioFile } from '../../harness/scenario/parse-run-scenario.js';

const DIR = join(import.meta.dirname, '..', '..', 'scenarios');
const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));

describe('shipped scenarios', () => {
  it('include the quickstart and the realistic ones', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'quickstart.yaml',
        'openai-tpm-squeeze.yaml',
        'anthropic-529-storm.yaml',
        'gemini-daily-quota-wall.yaml',
      ]),
    );
  });

  it.each(files)('%s validates with no issues', async (file) => {
    const r = await loadScenarioFile(join(DIR, file));
    expect(r.ok ? [] : r.report.split('\n')).toEqual([]);
  });
});

describe('the conformance pack', () => {
  const PACK = join(DIR, 'conformance');
  const pack = readdirSync(PACK).filter((f) => f.endsWith('.yaml'));

  // An optional fault may match no attempt (the report then says so, and the run is not made
  // INCONCLUSIVE by it): every fault of the pack is forced unless its file says, in a comment,
  // why it cannot be (pinning requests to it would break what the scenario judges).
  it.each(pack)('%s marks a fault optional only with the reason written beside it', async (file) => {
    const r = await loadScenarioFile(join(PACK, file));
    if (!r.ok) throw new Error(r.report);
    const optional = r.scenario.faults.filter((f) => f.optional === true).map((f) => f.id);
    const text = readFileSync(join(PACK, file), 'utf8');
    const explained = text.split('\n').some((l) => /^\s*#.*\boptional\b/.test(l));
    expect(
      optional.length === 0 || explained,
      `${file}: optional faults ${optional.join(', ')} with no comment saying why`,
    ).toBe(true);
  });
});
