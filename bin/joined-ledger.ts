import {
  followLedgerStream,
  isGroupWorker,
  LedgerStreamTally,
  type LedgerStreamEntry,
  type StreamShortfall,
} from '../simulator/index.js';
import { openLedgerFile } from './ledger-file.js';

/** Workers that joined from elsewhere (`simulate --join`) name themselves `j-<id>` in the stream. */
const isJoined = (worker: string) => worker.startsWith('j-');

/** What the joined workers' part of a group's ledger came to. */
export interface JoinedLedger {
  /** Joined workers seen, and the rows each delivered. */
  workers: Array<{ worker: string; received: number }>;
  /** Workers whose rows are known or feared missing (no closing count, or fewer rows than it). */
  shortfalls: StreamShortfall[];
  /** Entries refused whole (unknown workers, bad numbering, nothing usable), and the rows they held. */
  refused: { entries: number; rows: number };
  /** The part file's write failure, if any. */
  error?: NodeJS.ErrnoException;
}

/**
 * The primary's reader of its group's ledger stream: every row of a joined worker goes to
 * `part` (merged with the forked workers' parts at the end). Forked workers' rows are skipped
 * here: their own files are the primary's record of them, Redis or not. A refused row counts as
 * missing (its worker's shortfall names it); `warn` hears of the first refusal of each worker.
 */
export async function collectJoinedLedger(o: {
  url: string;
  prefix: string;
  part: string;
  forked: number;
  warn: (line: string) => void;
}) {
  const file = await openLedgerFile(o.part, () => {});
  const tally = new LedgerStreamTally();
  const refused = { entries: 0, rows: 0 };
  const warned = new Set<string>();
  const warn = (entry: LedgerStreamEntry, reason: string) => {
    if (warned.has(entry.worker) || warned.size >= 20) return;
    warned.add(entry.worker);
    o.warn(`refused a ledger entry of "${entry.worker}" read from Redis (${reason}); later ones are counted`);
  };
  const follower = followLedgerStream({
    url: o.url,
    prefix: o.prefix,
    isWorker: (worker) => isGroupWorker(worker, o.forked),
    ignore: (worker) => !isJoined(worker),
    onEntry(entry) {
      if (entry.kind === 'hello') tally.hello(entry.worker);
      else if (entry.kind === 'end') tally.end(entry.worker, entry.total);
      else if (entry.kind === 'refused') {
        refused.entries++;
        refused.rows += entry.rows;
        warn(entry, entry.reason);
      } else {
        const skip = tally.accept(entry.worker, entry.first, entry.rows.length);
        let bad = 0;
        for (let i = skip; i < entry.rows.length; i++) {
          const row = entry.rows[i];
          if (row) file.write(row);
          else bad++;
        }
        if (bad) {
          tally.refuse(entry.worker, bad);
          warn(entry, entry.refused[0]!);
        }
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
        refused,
        ...(written.error ? { error: written.error } : {}),
      };
    },
  };
}
