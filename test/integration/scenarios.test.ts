import { readdirSync } from 'node:fs';
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
