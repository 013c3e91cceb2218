import { formatIssues, type ScenarioIssue } from './issue.js';
import { parseScenario, type ScenarioParser } from './parse-scenario.js';
import { readTextFile } from './read-text-file.js';
import type { Scenario } from './schema.js';

/** A scenario file read from disk: the scenario, or its rendered problems. */
export type LoadScenarioResult<S = Scenario> =
  { ok: true; scenario: S; text: string } | { ok: false; issues: ScenarioIssue[]; report: string };

/**
 * Reads and validates a scenario file with `parse`; a missing, oversized or non-UTF-8 file is
 * reported like any other problem.
 */
export async function loadScenarioFile<S = Scenario>(
  file: string,
  env: Readonly<Record<string, string | undefined>> = {},
  parse: ScenarioParser<S> = parseScenario as unknown as ScenarioParser<S>,
): Promise<LoadScenarioResult<S>> {
  const read = await readTextFile(file);
  if (!read.ok) return { ok: false, issues: [read.issue], report: formatIssues(file, [read.issue]) };
  const text = read.text;
  const result = parse(text, { env });
  return result.ok
    ? { ok: true, scenario: result.scenario, text }
    : { ok: false, issues: result.issues, report: formatIssues(file, result.issues) };
}
