import { readFile } from 'node:fs/promises';
import { formatIssues, type ScenarioIssue } from './issue.js';
import { parseScenario, type ScenarioParser } from './parse-scenario.js';
import type { Scenario } from './schema.js';

/** A scenario file read from disk: the scenario, or its rendered problems. */
export type LoadScenarioResult<S = Scenario> =
  { ok: true; scenario: S; text: string } | { ok: false; issues: ScenarioIssue[]; report: string };

/** Reads and validates a scenario file with `parse`; a missing file is reported like any other problem. */
export async function loadScenarioFile<S = Scenario>(
  file: string,
  env: Readonly<Record<string, string | undefined>> = {},
  parse: ScenarioParser<S> = parseScenario as unknown as ScenarioParser<S>,
): Promise<LoadScenarioResult<S>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const issue: ScenarioIssue = {
      code: 'SCENARIO_FILE_UNREADABLE',
      path: [],
      message: `cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      line: 1,
      col: 1,
    };
    return { ok: false, issues: [issue], report: formatIssues(file, [issue]) };
  }
  const result = parse(text, { env });
  return result.ok
    ? { ok: true, scenario: result.scenario, text }
    : { ok: false, issues: result.issues, report: formatIssues(file, result.issues) };
}
