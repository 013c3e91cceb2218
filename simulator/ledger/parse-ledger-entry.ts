import type { LedgerRow } from './ledger-row.js';
import { LEDGER_ROW_MAX_CHARS, parseLedgerRow, type RowTimeBounds } from './parse-ledger-row.js';

/** Rows in one entry of a group's ledger stream at most: one XADD carries a batch. */
export const LEDGER_ROWS_PER_ENTRY = 100;

/** One entry of a group's ledger stream, as read and checked. */
export type LedgerStreamEntry =
  | { worker: string; kind: 'hello' }
  /** `rows[i]` undefined: that row was refused (`refused` says why, one reason per refused row). */
  | { worker: string; kind: 'rows'; first: number; rows: Array<LedgerRow | undefined>; refused: string[] }
  | { worker: string; kind: 'end'; total: number }
  /** An entry refused whole (unknown worker, bad numbering, every row refused): it counts for nothing. */
  | { worker: string; kind: 'refused'; rows: number; reason: string };

/** Row numbers and counts a worker may state at most (a billion rows a day is far past any worker). */
const MAX_NUMBER = 2 ** 40;
const COUNT = /^\d{1,13}$/;

/**
 * Whether `id` names a worker of a group of `forked` forked workers: `w1`…`w<forked>`, or a
 * joined one, `j-` and eight hex digits.
 */
export function isGroupWorker(id: string, forked: number): boolean {
  const w = /^w(\d{1,4})$/.exec(id);
  if (w) return Number(w[1]) >= 1 && Number(w[1]) <= forked;
  return /^j-[0-9a-f]{8}$/.test(id);
}

const shown = (worker: string) => (worker.length > 40 ? `${worker.slice(0, 40)}…` : worker);

/**
 * Checks one stream entry's fields (`[name, value, ...]`) as untrusted input: anything read from
 * Redis may be forged or damaged, so an unknown worker, a malformed number or a bad row is
 * refused with a reason, never thrown; undefined for the primary's opening entry.
 */
export function parseLedgerEntry(
  fields: readonly string[],
  o: { isWorker: (id: string) => boolean; bounds: RowTimeBounds },
): LedgerStreamEntry | undefined {
  const f = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length && i < 32; i += 2) f.set(fields[i]!, fields[i + 1]!);
  const worker = f.get('w') ?? '';
  if (worker === 'primary' && f.has('hello')) return undefined;
  const refuse = (reason: string, rows = 0): LedgerStreamEntry => ({
    worker: shown(worker),
    kind: 'refused',
    rows,
    reason,
  });
  if (!o.isWorker(worker)) return refuse('not a worker of this group');
  if (f.has('hello')) return { worker, kind: 'hello' };
  const end = f.get('end');
  if (end !== undefined)
    return COUNT.test(end) && Number(end) <= MAX_NUMBER
      ? { worker, kind: 'end', total: Number(end) }
      : refuse('a closing count that is not a count');
  const text = f.get('rows');
  if (text === undefined) return refuse('neither rows nor a greeting nor a closing count');
  if (text.length > LEDGER_ROWS_PER_ENTRY * (LEDGER_ROW_MAX_CHARS + 1))
    return refuse(`a batch of ${text.length} characters`);
  const lines = text.split('\n');
  if (lines.length > LEDGER_ROWS_PER_ENTRY) return refuse(`a batch of ${lines.length} rows`, lines.length);
  const n = f.get('n') ?? '';
  if (!(COUNT.test(n) && Number(n) >= 1 && Number(n) <= MAX_NUMBER))
    return refuse('a batch without a row number', lines.length);
  const rows: Array<LedgerRow | undefined> = [];
  const refused: string[] = [];
  for (const line of lines) {
    const parsed = parseLedgerRow(line, o.bounds);
    rows.push(parsed.ok ? parsed.row : undefined);
    if (!parsed.ok) refused.push(parsed.reason);
  }
  // A batch with nothing usable does not move its worker's numbering: a forged one cannot hide real rows.
  if (refused.length === lines.length) return refuse(refused[0]!, lines.length);
  return { worker, kind: 'rows', first: Number(n), rows, refused };
}
