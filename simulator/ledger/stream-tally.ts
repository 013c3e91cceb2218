/** What one worker's part of a shared ledger stream delivered. */
export interface WorkerTally {
  worker: string;
  /** Rows received, duplicates not counted. */
  received: number;
  /** The rows the worker said it recorded, once it said it stopped (absent until then). */
  total?: number;
}

/** What a reader found missing from the stream, per worker, when it stopped reading. */
export interface StreamShortfall {
  worker: string;
  received: number;
  /** The worker's own count, when it said it stopped; absent: it never did. */
  total?: number;
  /** Rows known missing (numbers skipped, refused as malformed, or short of the worker's total). */
  missing: number;
  /** Of those, rows that arrived but were refused as malformed (absent: none). */
  refused?: number;
}

interface State {
  /** The next row number expected (rows are numbered from 1 per worker). */
  next: number;
  received: number;
  refused: number;
  total?: number;
}

/**
 * Counts a shared ledger stream worker by worker, so that nothing goes missing silently: each
 * worker numbers its rows from 1 and sends them in order in batches; a batch that repeats
 * numbers (a send retried after it reached Redis) is trimmed, one that skips numbers (trimmed by
 * MAXLEN before it was read, or dropped by a worker whose queue overflowed) counts as missing,
 * and a worker's closing count says whether its last rows arrived. Pure: no Redis, no clock.
 */
export class LedgerStreamTally {
  private readonly workers = new Map<string, State>();

  private state(worker: string): State {
    let s = this.workers.get(worker);
    if (!s) this.workers.set(worker, (s = { next: 1, received: 0, refused: 0 }));
    return s;
  }

  /** Notes that `worker` takes part (its first entry), so that its silence is noticed. */
  hello(worker: string): void {
    this.state(worker);
  }

  /**
   * Takes a batch of `count` rows numbered from `first`; returns how many of its leading rows
   * were seen already and must be skipped (0 for a fresh batch; `count` for a full repeat).
   */
  accept(worker: string, first: number, count: number): number {
    const s = this.state(worker);
    const skip = Math.min(count, Math.max(0, s.next - first));
    s.received += count - skip;
    s.next = Math.max(s.next, first + count);
    return skip;
  }

  /**
   * Takes back `count` rows of a batch just accepted that were refused as malformed: they stay
   * numbered (so they are not awaited again) but count as missing, never as received.
   */
  refuse(worker: string, count: number): void {
    const s = this.state(worker);
    s.received -= count;
    s.refused += count;
  }

  /** Notes a worker's closing count: every row it recorded, sent or not. */
  end(worker: string, total: number): void {
    this.state(worker).total = total;
  }

  /** Whether every worker that said hello has said it stopped. */
  allEnded(): boolean {
    for (const s of this.workers.values()) if (s.total === undefined) return false;
    return true;
  }

  /** Every worker's count so far. */
  tallies(): WorkerTally[] {
    return [...this.workers].map(([worker, s]) => ({
      worker,
      received: s.received,
      ...(s.total === undefined ? {} : { total: s.total }),
    }));
  }

  /** The workers whose rows are known or feared missing: fewer received than numbered, or no closing count. */
  shortfalls(): StreamShortfall[] {
    const out: StreamShortfall[] = [];
    for (const [worker, s] of this.workers) {
      const expected = Math.max(s.total ?? 0, s.next - 1);
      const missing = expected - s.received;
      if (missing > 0 || s.total === undefined)
        out.push({
          worker,
          received: s.received,
          ...(s.total === undefined ? {} : { total: s.total }),
          missing,
          ...(s.refused ? { refused: s.refused } : {}),
        });
    }
    return out;
  }
}
