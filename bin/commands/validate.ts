import { loadScenarioFile } from '../../simulator/index.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';

/** Options of `throttlelab validate`. */
export interface ValidateOptions {
  files: string[];
}

/** Checks scenario files, printing every problem as `file:line:col CODE path: message`. */
export async function validate(options: ValidateOptions, io: Io): Promise<ExitCode> {
  let bad = 0;
  for (const file of options.files) {
    const result = await loadScenarioFile(file, io.env);
    if (result.ok) {
      io.out(`${file}: ok (scenario "${result.scenario.name}", ${result.scenario.providers.length} providers, ${result.scenario.faults.length} faults)`);
    } else {
      bad++;
      io.err(result.report);
    }
  }
  if (bad > 0) io.err(`${bad} of ${options.files.length} file${options.files.length === 1 ? '' : 's'} invalid.`);
  return bad > 0 ? EXIT.BAD_INPUT : EXIT.OK;
}
