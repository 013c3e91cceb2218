import { describe, expect, it } from 'vitest';
import { isCliError } from '../errors.js';
import { checkLedgerFile } from './simulate.js';

const enospc = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });

/** What checkLedgerFile threw: its code (or 'bug') and message, or undefined. */
function thrown(written: { rows: number; error?: NodeJS.ErrnoException }, ended: number) {
  try {
    checkLedgerFile('ledger.jsonl', written, ended);
    return undefined;
  } catch (e) {
    return { code: isCliError(e) ? e.code : 'bug', message: (e as Error).message };
  }
}

describe('checkLedgerFile', () => {
  it('says how many attempts the file lacks, and of how many, after a write error', () => {
    expect(thrown({ rows: 1, error: enospc }, 3)).toEqual({
      code: 'CLI_OUTPUT_UNWRITABLE',
      message:
        '--ledger-out ledger.jsonl: writing failed (ENOSPC); the file is incomplete: 2 of 3 attempts are not in it.',
    });
  });

  it('never says "at least 0 of" a count, given a write error after every attempt was written', () => {
    expect(thrown({ rows: 1, error: enospc }, 1)).toEqual({
      code: 'CLI_OUTPUT_UNWRITABLE',
      message: '--ledger-out ledger.jsonl: writing failed (ENOSPC); the file may be incomplete.',
    });
  });

  it('calls a shortfall without a write error a bug, never silent', () => {
    expect(thrown({ rows: 59 }, 284)).toEqual({
      code: 'bug',
      message:
        '--ledger-out ledger.jsonl: the file is incomplete: 225 of 284 attempts are not in it, with no write error: a throttlelab bug.',
    });
  });

  it('passes a file that holds every attempt that ended', () => {
    expect(thrown({ rows: 284 }, 284)).toBeUndefined();
  });
});
