import type { LedgerRow } from '../../simulator/index.js';

/** Ids numbered past this many per row are looked up by string: a dense index sized by them would be mostly empty. */
const DENSE_PER_ROW = 4;

/**
 * A run's chat attempts grouped by correlation id (attempts without one are left out), each group
 * in ledger order, groups in the order their first attempt came. Kept as offsets into one array
 * of row indices rather than one array per request: a day's run has a million requests, and a
 * million small arrays were most of what judging held. `get` builds a request's list when asked.
 *
 * Ids in the run's form (a prefix, then a number: `r1a2b-417`) are found by their number in a
 * typed array, not hashed in a map: the checks look up a day's million ids several times each,
 * every one a string just made by a view, and hashing them was most of judging's time.
 */
export class AttemptGroups {
  /** The run's id prefix (the first id up to its last `-`). */
  private readonly prefix: string;
  /** Group + 1 of the id `prefix` + n, at n (0: none); ids numbered `limit` or more are in `index`. */
  private readonly byNumber: Int32Array;
  private readonly limit: number;
  /** Groups of the ids not in the run's form. */
  private readonly index = new Map<string, number>();
  /** Group g's row indices are `members[start[g]]` up to `members[start[g + 1]]`. */
  private readonly start: Uint32Array;
  private readonly members: Uint32Array;

  constructor(private readonly rows: readonly LedgerRow[]) {
    this.limit = DENSE_PER_ROW * rows.length + 1024;
    const groupOf = new Int32Array(rows.length);
    let counts = new Uint32Array(1024);
    let groups = 0;
    let grouped = 0;
    let prefix: string | undefined;
    let numbers = new Int32Array(1024);
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      const id = r.correlationId;
      if (id === null || r.endpoint !== 'chat') {
        groupOf[i] = -1;
        continue;
      }
      const n = numberAfter(id, (prefix ??= id.slice(0, id.lastIndexOf('-') + 1)), this.limit);
      let g: number | undefined;
      if (n >= 0) {
        if (n >= numbers.length) {
          const more = new Int32Array(Math.min(this.limit, Math.max(n + 1, numbers.length * 2)));
          more.set(numbers);
          numbers = more;
        }
        g = numbers[n]! - 1;
        if (g < 0) {
          g = groups++;
          numbers[n] = g + 1;
        }
      } else {
        g = this.index.get(id);
        if (g === undefined) {
          g = groups++;
          this.index.set(id, g);
        }
      }
      if (g === counts.length) {
        const more = new Uint32Array(counts.length * 2);
        more.set(counts);
        counts = more;
      }
      counts[g]!++;
      groupOf[i] = g;
      grouped++;
    }
    this.prefix = prefix ?? '';
    this.byNumber = numbers;
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

  /** The group of an id, or -1. */
  private find(id: string): number {
    const n = numberAfter(id, this.prefix, this.limit);
    if (n < 0) return this.index.get(id) ?? -1;
    return n < this.byNumber.length ? this.byNumber[n]! - 1 : -1;
  }

  /** Number of requests (correlation ids) with at least one chat attempt. */
  get size(): number {
    return this.start.length - 1;
  }

  /** The group of a correlation id, or -1. */
  groupOf(id: string): number {
    return this.find(id);
  }

  /** Attempts of group `g`. */
  sizeOf(g: number): number {
    return this.start[g + 1]! - this.start[g]!;
  }

  /** Chat attempts of a request, in ledger order (a new array each call); undefined when it has none. */
  get(id: string): LedgerRow[] | undefined {
    const g = this.find(id);
    return g < 0 ? undefined : this.list(g);
  }

  /** Number of chat attempts of a request (0 when none). */
  count(id: string): number {
    const g = this.find(id);
    return g < 0 ? 0 : this.sizeOf(g);
  }

  /** A request's first chat attempt. */
  first(id: string): LedgerRow | undefined {
    const g = this.find(id);
    return g < 0 ? undefined : this.rows[this.members[this.start[g]!]!];
  }

  /** A request's last chat attempt. */
  last(id: string): LedgerRow | undefined {
    const g = this.find(id);
    return g < 0 ? undefined : this.rows[this.members[this.start[g + 1]! - 1]!];
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

/**
 * n when `id` is `prefix` followed by n written plainly (no sign, no leading zero) and n is below
 * `limit`, else -1: then the id is known by its string.
 */
function numberAfter(id: string, prefix: string, limit: number): number {
  const from = prefix.length;
  const to = id.length;
  if (to === from || to - from > 9 || !id.startsWith(prefix)) return -1;
  if (to - from > 1 && id.charCodeAt(from) === 48) return -1;
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = id.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n < limit ? n : -1;
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
