import { loadRunScenarioFile } from '../../harness/index.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Options of `throttlelab validate`. */
export interface ValidateOptions {
  files: string[];
}

/** Checks scenario files, printing every problem as `file:line:col CODE path: message`. */
export async function validate(options: ValidateOptions, io: Io): Promise<ExitCode> {
  let bad = 0;
  for (const file of options.files) {
    const result = await loadRunScenarioFile(file, io.env);
    if (result.ok) {
      const { providers, faults } = result.scenario;
      io.out(
        `${file}: ok (scenario "${result.scenario.name}", ${plural(providers.length, 'provider')}, ${plural(faults.length, 'fault')})`,
      );
    } else {
      bad++;
      io.err(result.report);
    }
  }
  if (bad > 0) io.err(`${bad} of ${options.files.length} file${options.files.length === 1 ? '' : 's'} invalid.`);
  return bad > 0 ? EXIT.BAD_INPUT : EXIT.OK;
}
