import type { LedgerRow } from '../../simulator/index.js';

/**
 * A run's chat attempts grouped by correlation id (attempts without one are left out), each group
 * in ledger order, groups in the order their first attempt came. Kept as offsets into one array
 * of row indices rather than one array per request: a day's run has a million requests, and a
 * million small arrays were most of what judging held. `get` builds a request's list when asked.
 */
export class AttemptGroups {
  private readonly index = new Map<string, number>();
  /** Group g's row indices are `members[start[g]]` up to `members[start[g + 1]]`. */
  private readonly start: Uint32Array;
  private readonly members: Uint32Array;

  constructor(private readonly rows: readonly LedgerRow[]) {
    const groupOf = new Int32Array(rows.length);
    let counts = new Uint32Array(1024);
    let groups = 0;
    let grouped = 0;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      const id = r.correlationId;
      if (id === null || r.endpoint !== 'chat') {
        groupOf[i] = -1;
        continue;
      }
      let g = this.index.get(id);
      if (g === undefined) {
        g = groups++;
        this.index.set(id, g);
        if (g === counts.length) {
          const more = new Uint32Array(counts.length * 2);
          more.set(counts);
          counts = more;
        }
      }
      counts[g]!++;
      groupOf[i] = g;
      grouped++;
    }
    this.start = new Uint32Array(groups + 1);
    for (let g = 0; g < groups; g++) this.start[g + 1] = this.start[g]! + counts[g]!;
    // `counts` becomes each group's next free place.
    counts.set(this.start.subarray(0, groups));
    this.members = new Uint32Array(grouped);
    for (let i = 0; i < rows.length; i++) {
      const g = groupOf[i]!;
      if (g >= 0) this.members[counts[g]!++] = i;
    }
  }

  /** Number of requests (correlation ids) with at least one chat attempt. */
  get size(): number {
    return this.start.length - 1;
  }

  /** The group of a correlation id, or -1. */
  groupOf(id: string): number {
    return this.index.get(id) ?? -1;
  }

  /** Attempts of group `g`. */
  sizeOf(g: number): number {
    return this.start[g + 1]! - this.start[g]!;
  }

  /** Chat attempts of a request, in ledger order (a new array each call); undefined when it has none. */
  get(id: string): LedgerRow[] | undefined {
    const g = this.index.get(id);
    return g === undefined ? undefined : this.list(g);
  }

  /** Number of chat attempts of a request (0 when none). */
  count(id: string): number {
    const g = this.index.get(id);
    return g === undefined ? 0 : this.sizeOf(g);
  }

  /** A request's first chat attempt. */
  first(id: string): LedgerRow | undefined {
    const g = this.index.get(id);
    return g === undefined ? undefined : this.rows[this.members[this.start[g]!]!];
  }

  /** A request's last chat attempt. */
  last(id: string): LedgerRow | undefined {
    const g = this.index.get(id);
    return g === undefined ? undefined : this.rows[this.members[this.start[g + 1]! - 1]!];
  }

  /** Every request's attempts, requests in the order of their first attempt. */
  *lists(): IterableIterator<LedgerRow[]> {
    for (let g = 0; g < this.size; g++) yield this.list(g);
  }

  private list(g: number): LedgerRow[] {
    const from = this.start[g]!;
    const out = new Array<LedgerRow>(this.start[g + 1]! - from);
    for (let k = 0; k < out.length; k++) out[k] = this.rows[this.members[from + k]!]!;
    return out;
  }
}

const byRequestOf = new WeakMap<readonly LedgerRow[], AttemptGroups>();

/**
 * Chat rows grouped by correlation id. Six checks ask for the same run's grouping: it is made once
 * per rows array (read it, never change it).
 */
export function attemptsByRequest(rows: readonly LedgerRow[]): AttemptGroups {
  let grouped = byRequestOf.get(rows);
  if (!grouped) {
    grouped = new AttemptGroups(rows);
    byRequestOf.set(rows, grouped);
  }
  return grouped;
}

/** Lets go of the grouping `attemptsByRequest` made for `rows`, once the checks are done. */
export function forgetAttemptsByRequest(rows: readonly LedgerRow[]): void {
  byRequestOf.delete(rows);
}
