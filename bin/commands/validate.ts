import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Options of `throttlelab validate`. */
export interface ValidateOptions {
  files: string[];
}

/** Why a file cannot be read (its errno code), or undefined when it can. */
async function unreadable(file: string): Promise<string | undefined> {
  try {
    await access(file, constants.R_OK);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'error';
  }
}

/**
 * Checks scenario files, printing every problem as `file:line:col CODE path: message`. A file that
 * cannot be read is answered before the harness is loaded (the same line it would print), so a
 * mistyped path costs a fraction of a second, not the load of every package.
 */
export async function validate(options: ValidateOptions, io: Io): Promise<ExitCode> {
  let bad = 0;
  let harness: typeof import('../../harness/scenario-index.js') | undefined;
  for (const file of options.files) {
    const code = await unreadable(file);
    if (code !== undefined) {
      bad++;
      io.err(`${file}:1:1 SCENARIO_FILE_UNREADABLE (root): cannot read the file (${code})`);
      continue;
    }
    harness ??= await import('../../harness/scenario-index.js');
    const result = await harness.loadRunScenarioFile(file, io.env);
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
