import { followLedgerStream, LedgerStreamTally, type StreamShortfall } from '../simulator/index.js';
import { openLedgerFile } from './ledger-file.js';

/** Workers that joined from elsewhere (`simulate --join`) name themselves `j-<id>` in the stream. */
const isJoined = (worker: string) => worker.startsWith('j-');

/** What the joined workers' part of a group's ledger came to. */
export interface JoinedLedger {
  /** Joined workers seen, and the rows each delivered. */
  workers: Array<{ worker: string; received: number }>;
  /** Workers whose rows are known or feared missing (no closing count, or fewer rows than it). */
  shortfalls: StreamShortfall[];
  /** The part file's write failure, if any. */
  error?: NodeJS.ErrnoException;
}

/**
 * The primary's reader of its group's ledger stream: every row of a joined worker goes to
 * `part` (merged with the forked workers' parts at the end). Forked workers' rows are skipped
 * here: their own files are the primary's record of them, Redis or not.
 */
export async function collectJoinedLedger(url: string, prefix: string, part: string) {
  const file = await openLedgerFile(part, () => {});
  const tally = new LedgerStreamTally();
  const follower = followLedgerStream({
    url,
    prefix,
    ignore: (worker) => !isJoined(worker),
    onEntry(entry) {
      if (entry.kind === 'hello') tally.hello(entry.worker);
      else if (entry.kind === 'end') tally.end(entry.worker, entry.total);
      else {
        const skip = tally.accept(entry.worker, entry.first, entry.rows.length);
        for (let i = skip; i < entry.rows.length; i++) file.write(entry.rows[i]!);
      }
    },
  });
  return {
    /**
     * Waits (at most `deadlineMs`, polling) until every joined worker seen has sent its closing
     * count: they stop once the group is withdrawn, within about a second, then send what is left.
     */
    async settle(deadlineMs: number): Promise<void> {
      const giveUpAt = Date.now() + deadlineMs;
      while (!tally.allEnded() && Date.now() < giveUpAt) await new Promise((r) => setTimeout(r, 50));
    },
    async close(): Promise<JoinedLedger> {
      await follower.close();
      const written = await file.close();
      return {
        workers: tally.tallies().map(({ worker, received }) => ({ worker, received })),
        shortfalls: tally.shortfalls(),
        ...(written.error ? { error: written.error } : {}),
      };
    },
  };
}
