import { readFile } from 'node:fs/promises';
import { formatIssues, type ScenarioIssue } from './issue.js';
import { parseScenario } from './parse-scenario.js';
import type { Scenario } from './schema.js';

/** A scenario file read from disk: the scenario, or its rendered problems. */
export type LoadScenarioResult =
  | { ok: true; scenario: Scenario; text: string }
  | { ok: false; issues: ScenarioIssue[]; report: string };

/** Reads and validates a scenario file; a missing file is reported like any other problem. */
export async function loadScenarioFile(file: string, env: Readonly<Record<string, string | undefined>> = {}): Promise<LoadScenarioResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const issue: ScenarioIssue = { code: 'SCENARIO_FILE_UNREADABLE', path: [], message: `cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'})`, line: 1, col: 1 };
    return { ok: false, issues: [issue], report: formatIssues(file, [issue]) };
  }
  const result = parseScenario(text, { env });
  return result.ok ? { ok: true, scenario: result.scenario, text } : { ok: false, issues: result.issues, report: formatIssues(file, result.issues) };
}
