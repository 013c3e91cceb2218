import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { CliError } from './errors.js';

/**
 * Fails before any work is done when `dir` could not be written: it is a file, or its nearest
 * existing ancestor is not a writable folder. Nothing is created, so a failed run leaves no debris.
 */
export async function assertWritableDir(dir: string, flag = '--out'): Promise<void> {
  let current = resolve(dir);
  for (;;) {
    const info = await stat(current).catch(() => undefined);
    if (info) {
      if (!info.isDirectory())
        throw new CliError('CLI_OUTPUT_UNWRITABLE', `${flag} ${dir}: ${current} is not a folder. Name a folder.`);
      const writable = await access(current, constants.W_OK).then(
        () => true,
        () => false,
      );
      if (!writable)
        throw new CliError(
          'CLI_OUTPUT_UNWRITABLE',
          `${flag} ${dir}: ${current} is not writable. Name a folder you can write.`,
        );
      return;
    }
    const parent = dirname(current);
    if (parent === current) return;
    current = parent;
  }
}
