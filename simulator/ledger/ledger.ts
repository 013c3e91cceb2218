// Over 300 lines on purpose: the columnar store (typed arrays per column, interned strings) and
// its row view must change together; see docs/decisions/columnar-ledger.md.
import type { HintForm } from '../vendors/types.js';
import { formatDigest } from '../core/content-digest.js';
import { InternTable } from './intern.js';
import type { AttemptEnd, LedgerRow, WaitScope } from './ledger-row.js';

// Three bits: eight endings at most.
const ENDS: AttemptEnd[] = [
  'pending',
  'complete',
  'error-event',
  'truncated',
  'reset',
  'client-abort',
  'malformed',
  'shutdown',
];
const ENDPOINTS: LedgerRow['endpoint'][] = ['chat', 'models', 'other', 'responses', 'embeddings', 'invoke'];
const HINT_FORMS: Array<HintForm | 'garbage' | null> = [
  null,
  'seconds',
  'ms',
  'http-date',
  'reset-header',
  'body',
  'none',
  'garbage',
];
// Bit 7 of the small column: the attempt was decided without the shared quota engine.
const DEGRADED = 128;
// Bits 3-4 of the hint-form column: whose limit an announced wait covers (0: not said).
const SCOPES: Array<WaitScope | undefined> = [undefined, 'key', 'org', 'provider'];

/** The facts known when an attempt arrives. */
export interface AttemptStart {
  arrivalAt: number;
  provider: string;
  vendor: string;
  key: string;
  endpoint: LedgerRow['endpoint'];
  model: string | null;
  correlationId: string | null;
  sdkRetryCount: number | null;
  stream: boolean;
  /** Credentials carried besides the one that authenticated (see `LedgerRow.carried`). */
  carried?: string[];
  /** What the request asked for (see `LedgerRow.request`). */
  request?: string;
}

/** The facts decided when the response is planned. */
export interface AttemptPlan {
  status: number;
  errorType: string | null;
  hintMs: number | null;
  hintForm: HintForm | null;
  /** Whose limit the announced wait covers, and the organisation when it is one's (see `LedgerRow.scope`). */
  scope?: WaitScope;
  org?: string;
  requestsBefore: number;
  requestsAfter: number;
  tokensBefore: number;
  tokensAfter: number;
  /** NaN when the request was not admitted. */
  emptyForMs: number;
  tokensIn: number;
  tokensOut: number;
  /** Prompt tokens read from and written to the provider's prompt cache. */
  cacheRead?: number;
  cacheWrite?: number;
  faults: string[];
  end: AttemptEnd;
  /** Digest of the generated text (NaN: none) and its length. */
  contentDigest?: number;
  contentChars?: number;
  /** Decided without the shared quota engine (see `LedgerRow.degraded`). */
  degraded?: boolean;
}

/** Filters for `query`; all optional, combined with AND. */
export interface LedgerQuery {
  provider?: string;
  key?: string;
  model?: string;
  status?: number;
  correlationId?: string;
  /** Arrival at or after (epoch ms). */
  since?: number;
  /** Arrival before (epoch ms). */
  until?: number;
  offset?: number;
  limit?: number;
}

/** Receives each row as it ends (for streaming the ledger to disk). */
export type LedgerSink = (row: LedgerRow) => void;

class Column<T extends Float64Array | Uint32Array | Uint16Array | Uint8Array | Int32Array> {
  data: T;
  constructor(
    private readonly make: (n: number) => T,
    capacity: number,
    private readonly fill?: number,
  ) {
    this.data = make(capacity);
    if (fill !== undefined) this.data.fill(fill);
  }
  grow(capacity: number): void {
    const next = this.make(capacity);
    next.set(this.data);
    if (this.fill !== undefined) next.fill(this.fill, this.data.length);
    this.data = next;
  }
}

/**
 * Every attempt, column by column: typed arrays for numbers, interned ids for labels, so a million
 * rows take about 100 MB. Rows are kept up to `maxRows`; past that they still reach the sink (a
 * JSONL file) but are no longer queryable, and `dropped` counts them.
 */
export class Ledger {
  private rows = 0;
  private open = 0;
  private capacity: number;
  private droppedCount = 0;
  private readonly maxRows: number;
  // Replaced, never changed in place: a sink that leaves while rows are handed out (an event
  // client disconnecting) must not make the loop skip the next sink.
  private sinks: readonly LedgerSink[] = [];
  private readonly labels = new InternTable();
  private readonly models = new InternTable();
  private readonly faultSets = new InternTable();
  private readonly errorTypes = new InternTable();
  /**
   * Correlation ids as the number after the run's prefix (`r1a-1234`: `r1a-` and 1234), one float
   * a row off the heap instead of a string each; NaN: none, or kept whole in `correlationKept`.
   */
  private correlationPrefix: string | undefined;
  private readonly correlationNumber: Column<Float64Array>;
  private readonly correlationKept = new Map<number, string>();
  private readonly times: Column<Float64Array>[];
  private readonly arrival: Column<Float64Array>;
  private readonly firstByte: Column<Float64Array>;
  private readonly ended: Column<Float64Array>;
  private readonly hint: Column<Float64Array>;
  private readonly quota: Column<Float64Array>[];
  private readonly provider: Column<Uint16Array>;
  private readonly vendor: Column<Uint16Array>;
  private readonly key: Column<Uint16Array>;
  private readonly model: Column<Uint16Array>;
  private readonly errorType: Column<Uint16Array>;
  private readonly faults: Column<Uint16Array>;
  private readonly status: Column<Uint16Array>;
  private readonly retry: Column<Int32Array>;
  private readonly tokensIn: Column<Uint32Array>;
  private readonly tokensOut: Column<Uint32Array>;
  private readonly cacheRead: Column<Uint32Array>;
  private readonly cacheWrite: Column<Uint32Array>;
  /** Bits 0-2: end, 3-5: endpoint, 6: stream, 7: degraded. */
  private readonly small: Column<Uint8Array>;
  /** Bits 0-2: hint form, 3-4: the wait's scope. */
  private readonly hintFormColumn: Column<Uint8Array>;
  /** The organisation an org-scoped wait covers (interned label + 1; 0: none). */
  private readonly scopeOrg: Column<Uint16Array>;
  private readonly digest: Column<Float64Array>;
  private readonly chars: Column<Int32Array>;
  private readonly carried: Column<Uint16Array>;
  private readonly carriedSets = new InternTable();
  // A request's facts repeat across attempts and requests: one interned id a row (0: none).
  private readonly request: Column<Uint32Array>;
  private readonly requests = new InternTable(200_000);
  // Rows past maxRows live here only until they end and reach the sinks.
  private readonly overflow = new Map<number, LedgerRow>();

  constructor(options: { maxRows?: number; initialCapacity?: number } = {}) {
    this.maxRows = options.maxRows ?? 2_000_000;
    this.capacity = Math.min(options.initialCapacity ?? 4096, this.maxRows);
    const f64 = (fill?: number) => new Column((n) => new Float64Array(n), this.capacity, fill);
    const u16 = () => new Column((n) => new Uint16Array(n), this.capacity);
    this.arrival = f64();
    this.firstByte = f64(Number.NaN);
    this.ended = f64(Number.NaN);
    this.hint = f64(Number.NaN);
    this.quota = [f64(Number.NaN), f64(Number.NaN), f64(Number.NaN), f64(Number.NaN), f64(Number.NaN)];
    this.times = [this.arrival, this.firstByte, this.ended, this.hint, ...this.quota];
    this.provider = u16();
    this.vendor = u16();
    this.key = u16();
    this.model = u16();
    this.errorType = u16();
    this.faults = u16();
    this.status = u16();
    this.retry = new Column((n) => new Int32Array(n), this.capacity, -1);
    this.tokensIn = new Column((n) => new Uint32Array(n), this.capacity);
    this.tokensOut = new Column((n) => new Uint32Array(n), this.capacity);
    this.cacheRead = new Column((n) => new Uint32Array(n), this.capacity);
    this.cacheWrite = new Column((n) => new Uint32Array(n), this.capacity);
    this.small = new Column((n) => new Uint8Array(n), this.capacity);
    this.hintFormColumn = new Column((n) => new Uint8Array(n), this.capacity);
    this.scopeOrg = u16();
    this.digest = f64(Number.NaN);
    this.chars = new Column((n) => new Int32Array(n), this.capacity, -1);
    this.carried = u16();
    this.request = new Column((n) => new Uint32Array(n), this.capacity);
    this.correlationNumber = f64(Number.NaN);
  }

  /** Number of attempts recorded (including dropped ones). */
  get size(): number {
    return this.rows + this.droppedCount;
  }

  /** Attempts begun and not yet ended. */
  get inFlight(): number {
    return this.open;
  }

  /** Attempts past `maxRows`, not queryable (still sent to sinks). */
  get dropped(): number {
    return this.droppedCount;
  }

  /**
   * Streams each row to `sink` when it ends; the function returned removes that sink, and only
   * it, however often it is called (a second call once removed the last sink: the ledger file).
   */
  addSink(sink: LedgerSink): () => void {
    this.sinks = [...this.sinks, sink];
    return () => {
      this.sinks = this.sinks.filter((s) => s !== sink);
    };
  }

  /** Hands `row` to every sink, each even when one before it throws (the first error is rethrown after). */
  private emit(row: LedgerRow): void {
    let failure: { error: unknown } | undefined;
    for (const sink of this.sinks) {
      try {
        sink(row);
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }

  private allColumns() {
    return [
      ...this.times,
      this.provider,
      this.vendor,
      this.key,
      this.model,
      this.errorType,
      this.faults,
      this.status,
      this.retry,
      this.tokensIn,
      this.tokensOut,
      this.cacheRead,
      this.cacheWrite,
      this.small,
      this.hintFormColumn,
      this.scopeOrg,
      this.digest,
      this.chars,
      this.carried,
      this.request,
      this.correlationNumber,
    ];
  }

  /** Records an arriving attempt and returns its handle (its sequence number). */
  begin(start: AttemptStart): number {
    this.open++;
    const seq = this.rows + this.droppedCount;
    if (this.rows >= this.maxRows) {
      this.droppedCount++;
      this.overflow.set(seq, { ...this.blankRow(seq), ...startToRow(start) });
      return seq;
    }
    if (this.rows === this.capacity) {
      this.capacity = Math.min(this.capacity * 2, this.maxRows);
      for (const c of this.allColumns()) c.grow(this.capacity);
    }
    const i = this.rows++;
    this.arrival.data[i] = start.arrivalAt;
    this.provider.data[i] = this.labels.id(start.provider);
    this.vendor.data[i] = this.labels.id(start.vendor);
    this.key.data[i] = this.labels.id(start.key);
    this.model.data[i] = start.model === null ? 0 : this.models.id(start.model) + 1;
    this.correlationNumber.data[i] = this.correlationCode(i, start.correlationId);
    this.retry.data[i] = start.sdkRetryCount ?? -1;
    this.small.data[i] = (ENDPOINTS.indexOf(start.endpoint) << 3) | (start.stream ? 64 : 0);
    this.carried.data[i] = start.carried?.length ? this.carriedSets.id(start.carried.join(' ')) + 1 : 0;
    this.request.data[i] = start.request === undefined ? 0 : this.requests.id(start.request) + 1;
    return seq;
  }

  /** Records what the response will be. */
  plan(seq: number, p: AttemptPlan): void {
    const spill = this.overflow.get(seq);
    if (spill) {
      Object.assign(spill, planToRow(p));
      return;
    }
    const i = seq;
    this.status.data[i] = p.status;
    this.errorType.data[i] = p.errorType === null ? 0 : this.errorTypes.id(p.errorType) + 1;
    this.hint.data[i] = p.hintMs ?? Number.NaN;
    const form =
      p.hintMs !== null && Number.isNaN(p.hintMs) ? HINT_FORMS.indexOf('garbage') : HINT_FORMS.indexOf(p.hintForm);
    const scope = announced(p) ? SCOPES.indexOf(p.scope) : 0;
    this.hintFormColumn.data[i] = form | (scope << 3);
    this.scopeOrg.data[i] = scope === 2 && p.org !== undefined ? this.labels.id(p.org) + 1 : 0;
    this.quota[0]!.data[i] = p.requestsBefore;
    this.quota[1]!.data[i] = p.requestsAfter;
    this.quota[2]!.data[i] = p.tokensBefore;
    this.quota[3]!.data[i] = p.tokensAfter;
    this.quota[4]!.data[i] = p.emptyForMs;
    this.tokensIn.data[i] = p.tokensIn;
    this.tokensOut.data[i] = p.tokensOut;
    this.cacheRead.data[i] = p.cacheRead ?? 0;
    this.cacheWrite.data[i] = p.cacheWrite ?? 0;
    this.faults.data[i] = p.faults.length === 0 ? 0 : this.faultSets.id(p.faults.join(',')) + 1;
    this.small.data[i] = (this.small.data[i]! & ~(7 | DEGRADED)) | ENDS.indexOf(p.end) | (p.degraded ? DEGRADED : 0);
    this.digest.data[i] = p.contentDigest ?? Number.NaN;
    this.chars.data[i] = p.contentChars ?? -1;
  }

  /** Records when the headers went out. */
  firstByteAt(seq: number, at: number): void {
    const spill = this.overflow.get(seq);
    if (spill) spill.firstByteAt = at;
    else this.firstByte.data[seq] = at;
  }

  /** Records the end; `end` overrides the planned ending (client abort), `tokensOut` the delivered count. */
  finish(seq: number, at: number, end: AttemptEnd | undefined, tokensOut: number | undefined): void {
    this.open--;
    const spill = this.overflow.get(seq);
    if (spill) {
      spill.endAt = at;
      if (end) spill.end = end;
      if (tokensOut !== undefined) spill.tokensOut = tokensOut;
      this.overflow.delete(seq);
      this.emit(spill);
      return;
    }
    this.ended.data[seq] = at;
    if (end) this.small.data[seq] = (this.small.data[seq]! & ~7) | ENDS.indexOf(end);
    if (tokensOut !== undefined) this.tokensOut.data[seq] = tokensOut;
    if (this.sinks.length > 0) {
      const row = this.row(seq)!;
      this.emit(row);
    }
  }

  /** The number to keep for row `i`'s correlation id (NaN: none, or kept whole). */
  private correlationCode(i: number, id: string | null | undefined): number {
    if (id === null || id === undefined) return Number.NaN;
    this.correlationPrefix ??= id.slice(0, id.lastIndexOf('-') + 1);
    const rest = id.startsWith(this.correlationPrefix) ? id.slice(this.correlationPrefix.length) : '';
    const n = /^(0|[1-9]\d{0,14})$/.test(rest) ? Number(rest) : Number.NaN;
    if (Number.isNaN(n)) this.correlationKept.set(i, id);
    return n;
  }

  private correlationOf(i: number): string | null {
    const n = this.correlationNumber.data[i]!;
    return Number.isNaN(n) ? (this.correlationKept.get(i) ?? null) : `${this.correlationPrefix}${n}`;
  }

  /** One row as an object, or undefined if it was not kept. */
  row(seq: number): LedgerRow | undefined {
    if (seq < 0 || seq >= this.rows) return undefined;
    const i = seq;
    const num = (v: number) => (Number.isNaN(v) ? null : v);
    const small = this.small.data[i]!;
    const faults = this.faults.data[i]!;
    const model = this.model.data[i]!;
    const errorType = this.errorType.data[i]!;
    const retry = this.retry.data[i]!;
    const digest = this.digest.data[i]!;
    const chars = this.chars.data[i]!;
    const carried = this.carried.data[i]!;
    const row: LedgerRow = {
      seq,
      arrivalAt: this.arrival.data[i]!,
      firstByteAt: num(this.firstByte.data[i]!),
      endAt: num(this.ended.data[i]!),
      provider: this.labels.value(this.provider.data[i]!),
      vendor: this.labels.value(this.vendor.data[i]!),
      key: this.labels.value(this.key.data[i]!),
      model: model === 0 ? null : this.models.value(model - 1),
      endpoint: ENDPOINTS[(small >> 3) & 7]!,
      correlationId: this.correlationOf(i),
      sdkRetryCount: retry < 0 ? null : retry,
      stream: (small & 64) !== 0,
      status: this.status.data[i]!,
      errorType: errorType === 0 ? null : this.errorTypes.value(errorType - 1),
      hintMs: num(this.hint.data[i]!),
      hintForm: HINT_FORMS[this.hintFormColumn.data[i]! & 7] ?? null,
      quota: {
        requestsBefore: num(this.quota[0]!.data[i]!),
        requestsAfter: num(this.quota[1]!.data[i]!),
        tokensBefore: num(this.quota[2]!.data[i]!),
        tokensAfter: num(this.quota[3]!.data[i]!),
        emptyForMs: num(this.quota[4]!.data[i]!),
      },
      tokensIn: this.tokensIn.data[i]!,
      tokensOut: this.tokensOut.data[i]!,
      faults: faults === 0 ? [] : this.faultSets.value(faults - 1).split(','),
      end: ENDS[small & 7]!,
      contentDigest: Number.isNaN(digest) ? null : formatDigest(digest),
      contentChars: chars < 0 ? null : chars,
      carried: carried === 0 ? [] : this.carriedSets.value(carried - 1).split(' '),
    };
    // Only rows that touched a prompt cache carry its figures.
    if (this.cacheRead.data[i]) row.cacheRead = this.cacheRead.data[i]!;
    if (this.cacheWrite.data[i]) row.cacheWrite = this.cacheWrite.data[i]!;
    const request = this.request.data[i]!;
    if (request) row.request = this.requests.value(request - 1);
    const scope = SCOPES[this.hintFormColumn.data[i]! >> 3];
    if (scope) row.scope = scope;
    if (this.scopeOrg.data[i]) row.org = this.labels.value(this.scopeOrg.data[i]! - 1);
    if (small & DEGRADED) row.degraded = true;
    return row;
  }

  /** Every kept row, in arrival order. */
  *rowsIterator(): IterableIterator<LedgerRow> {
    for (let i = 0; i < this.rows; i++) yield this.row(i)!;
  }

  /**
   * Every kept row as a view that reads its fields from the columns when asked (about 40 bytes a
   * row, against several hundred for `rowsIterator`'s objects): what a long run judges from.
   * `JSON.stringify` of a view is that of `row(seq)`. The views read the columns live: use them
   * once no attempt is in flight.
   */
  rowViews(): LedgerRow[] {
    const View = (this.viewClass ??= this.makeView());
    const out = new Array<LedgerRow>(this.rows);
    for (let i = 0; i < this.rows; i++) out[i] = new View(i);
    return out;
  }

  private viewClass?: new (seq: number) => LedgerRow;

  private makeView(): new (seq: number) => LedgerRow {
    // The row views are a class of their own, whose `this` is the row: the ledger goes in by name.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const l = this;
    const num = (v: number) => (Number.isNaN(v) ? null : v);
    // Shared by every view without faults or credentials carried; frozen, so nobody adds to it.
    const NONE = Object.freeze([]) as unknown as string[];
    return class RowView implements LedgerRow {
      constructor(readonly seq: number) {}
      get arrivalAt() {
        return l.arrival.data[this.seq]!;
      }
      get firstByteAt() {
        return num(l.firstByte.data[this.seq]!);
      }
      get endAt() {
        return num(l.ended.data[this.seq]!);
      }
      get provider() {
        return l.labels.value(l.provider.data[this.seq]!);
      }
      get vendor() {
        return l.labels.value(l.vendor.data[this.seq]!);
      }
      get key() {
        return l.labels.value(l.key.data[this.seq]!);
      }
      get model() {
        const m = l.model.data[this.seq]!;
        return m === 0 ? null : l.models.value(m - 1);
      }
      get endpoint() {
        return ENDPOINTS[(l.small.data[this.seq]! >> 3) & 7]!;
      }
      get correlationId() {
        return l.correlationOf(this.seq);
      }
      get sdkRetryCount() {
        const r = l.retry.data[this.seq]!;
        return r < 0 ? null : r;
      }
      get stream() {
        return (l.small.data[this.seq]! & 64) !== 0;
      }
      get status() {
        return l.status.data[this.seq]!;
      }
      get errorType() {
        const e = l.errorType.data[this.seq]!;
        return e === 0 ? null : l.errorTypes.value(e - 1);
      }
      get hintMs() {
        return num(l.hint.data[this.seq]!);
      }
      get hintForm() {
        return HINT_FORMS[l.hintFormColumn.data[this.seq]! & 7] ?? null;
      }
      get scope() {
        return SCOPES[l.hintFormColumn.data[this.seq]! >> 3];
      }
      get org() {
        const o = l.scopeOrg.data[this.seq]!;
        return o === 0 ? undefined : l.labels.value(o - 1);
      }
      get quota() {
        const i = this.seq;
        return {
          requestsBefore: num(l.quota[0]!.data[i]!),
          requestsAfter: num(l.quota[1]!.data[i]!),
          tokensBefore: num(l.quota[2]!.data[i]!),
          tokensAfter: num(l.quota[3]!.data[i]!),
          emptyForMs: num(l.quota[4]!.data[i]!),
        };
      }
      get tokensIn() {
        return l.tokensIn.data[this.seq]!;
      }
      get tokensOut() {
        return l.tokensOut.data[this.seq]!;
      }
      get cacheRead() {
        return l.cacheRead.data[this.seq] || undefined;
      }
      get cacheWrite() {
        return l.cacheWrite.data[this.seq] || undefined;
      }
      get faults() {
        const f = l.faults.data[this.seq]!;
        return f === 0 ? NONE : l.faultSets.value(f - 1).split(',');
      }
      get end() {
        return ENDS[l.small.data[this.seq]! & 7]!;
      }
      get contentDigest() {
        const d = l.digest.data[this.seq]!;
        return Number.isNaN(d) ? null : formatDigest(d);
      }
      get contentChars() {
        const c = l.chars.data[this.seq]!;
        return c < 0 ? null : c;
      }
      get carried() {
        const c = l.carried.data[this.seq]!;
        return c === 0 ? NONE : l.carriedSets.value(c - 1).split(' ');
      }
      get request() {
        const r = l.request.data[this.seq]!;
        return r === 0 ? undefined : l.requests.value(r - 1);
      }
      get degraded() {
        return l.small.data[this.seq]! & DEGRADED ? (true as const) : undefined;
      }
      toJSON() {
        return l.row(this.seq);
      }
    };
  }

  /** Kept rows matching `q`, in arrival order, with the total before paging. */
  query(q: LedgerQuery = {}): { total: number; rows: LedgerRow[] } {
    const provider = q.provider === undefined ? undefined : this.labels.id(q.provider);
    const key = q.key === undefined ? undefined : this.labels.id(q.key);
    const model = q.model === undefined ? undefined : this.models.id(q.model) + 1;
    const offset = q.offset ?? 0;
    const limit = q.limit ?? Infinity;
    const rows: LedgerRow[] = [];
    let total = 0;
    for (let i = 0; i < this.rows; i++) {
      if (provider !== undefined && this.provider.data[i] !== provider) continue;
      if (key !== undefined && this.key.data[i] !== key) continue;
      if (model !== undefined && this.model.data[i] !== model) continue;
      if (q.status !== undefined && this.status.data[i] !== q.status) continue;
      if (q.since !== undefined && this.arrival.data[i]! < q.since) continue;
      if (q.until !== undefined && this.arrival.data[i]! >= q.until) continue;
      if (q.correlationId !== undefined && this.correlationOf(i) !== q.correlationId) continue;
      if (total >= offset && rows.length < limit) rows.push(this.row(i)!);
      total++;
    }
    return { total, rows };
  }

  private blankRow(seq: number): LedgerRow {
    return {
      seq,
      arrivalAt: 0,
      firstByteAt: null,
      endAt: null,
      provider: '',
      vendor: '',
      key: 'none',
      model: null,
      endpoint: 'other',
      correlationId: null,
      sdkRetryCount: null,
      stream: false,
      status: 0,
      errorType: null,
      hintMs: null,
      hintForm: null,
      quota: { requestsBefore: null, requestsAfter: null, tokensBefore: null, tokensAfter: null, emptyForMs: null },
      tokensIn: 0,
      tokensOut: 0,
      faults: [],
      end: 'pending',
      contentDigest: null,
      contentChars: null,
      carried: [],
    };
  }
}

function startToRow(s: AttemptStart): Partial<LedgerRow> {
  return {
    arrivalAt: s.arrivalAt,
    provider: s.provider,
    vendor: s.vendor,
    key: s.key,
    endpoint: s.endpoint,
    model: s.model,
    correlationId: s.correlationId,
    sdkRetryCount: s.sdkRetryCount,
    stream: s.stream,
    carried: s.carried ?? [],
    ...(s.request === undefined ? {} : { request: s.request }),
  };
}

function planToRow(p: AttemptPlan): Partial<LedgerRow> {
  const num = (v: number) => (Number.isNaN(v) ? null : v);
  return {
    status: p.status,
    errorType: p.errorType,
    hintMs: p.hintMs === null || Number.isNaN(p.hintMs) ? null : p.hintMs,
    hintForm: p.hintMs !== null && Number.isNaN(p.hintMs) ? 'garbage' : p.hintForm,
    ...(announced(p) && p.scope ? { scope: p.scope } : {}),
    ...(announced(p) && p.scope === 'org' && p.org !== undefined ? { org: p.org } : {}),
    quota: {
      requestsBefore: num(p.requestsBefore),
      requestsAfter: num(p.requestsAfter),
      tokensBefore: num(p.tokensBefore),
      tokensAfter: num(p.tokensAfter),
      emptyForMs: num(p.emptyForMs),
    },
    tokensIn: p.tokensIn,
    tokensOut: p.tokensOut,
    ...(p.cacheRead ? { cacheRead: p.cacheRead } : {}),
    ...(p.cacheWrite ? { cacheWrite: p.cacheWrite } : {}),
    faults: p.faults,
    end: p.end,
    contentDigest:
      p.contentDigest === undefined || Number.isNaN(p.contentDigest) ? null : formatDigest(p.contentDigest),
    contentChars: p.contentChars ?? null,
    ...(p.degraded ? { degraded: true as const } : {}),
  };
}

/** Whether a planned answer announced a wait (a hint, even garbage): only then is its scope kept. */
function announced(p: AttemptPlan): boolean {
  return p.hintMs !== null;
}
