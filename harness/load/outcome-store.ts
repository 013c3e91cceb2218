import { formatDigest } from '../../simulator/index.js';
import type { ClientOutcome, ErrorAnswer } from './client-outcome.js';

const STREAM_ENDS = [null, 'done', 'finish', 'error-event', 'silent'] as const;

/** Strings seen again and again (models, error codes, header values): each kept once, by number (0: null). */
class Labels {
  private readonly index = new Map<string, number>();
  private readonly values: string[] = [];
  code(value: string | null | undefined): number {
    if (value === null || value === undefined) return 0;
    let k = this.index.get(value);
    if (k === undefined) this.index.set(value, (k = this.values.push(value)));
    return k;
  }
  value(code: number): string | null {
    return code === 0 ? null : this.values[code - 1]!;
  }
}

/**
 * The number `id` ends with from `start` (`/^(0|[1-9]\d{0,14})$/`, so that the number prints back
 * as those characters), or NaN: read without a substring or a pattern, once per request.
 */
function idNumberAt(id: string, start: number): number {
  const length = id.length - start;
  if (length < 1 || length > 15 || (length > 1 && id.charCodeAt(start) === 0x30)) return Number.NaN;
  let n = 0;
  for (let i = start; i < id.length; i++) {
    const d = id.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return Number.NaN;
    n = n * 10 + d;
  }
  return n;
}

/**
 * Whether `digest` is surely as `formatDigest` writes its number: 14 lowercase hex digits below
 * 2^53 (every number is exact there), a content digest's form, known without writing it again.
 */
function isFormattedDigest(digest: string): boolean {
  if (digest.length !== 14) return false;
  const first = digest.charCodeAt(0);
  if (first !== 0x30 && first !== 0x31) return false;
  for (let i = 1; i < 14; i++) {
    const c = digest.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

/** A growable column of numbers. */
class Column {
  data: Float64Array;
  constructor(capacity: number) {
    this.data = new Float64Array(capacity);
  }
  grow(capacity: number): void {
    const next = new Float64Array(capacity);
    next.set(this.data);
    this.data = next;
  }
}

/** Interned strings per outcome: model, error, stream end, served by, retry-after, content type, detail, error answer, request facts. */
const STRINGS = 9;

// Flags: which optional fields an outcome has, and its two booleans.
const STREAM = 1;
const HAS_DETAIL = 2;
const HAS_CONTENT_TYPE = 4;
const HAS_DIGEST = 8;
const HAS_USAGE = 16;
/** A stream's `frames` was set before its content digest (`applyStream`), not after (a plain body). */
const FRAMES_FIRST = 32;
const HAS_ERROR_ANSWER = 64;

/**
 * Client outcomes kept as columns once a request is over (typed arrays and a few interned
 * strings: about 120 bytes an outcome against some 380 for the object), read back through views
 * with the same fields, and written out (`toJSON`) as the very same object, key for key: a day's
 * million outcomes stay small, and the garbage collector has a million fewer objects to trace.
 * Only the fields the simulated load generator sets are stored; `push` refuses others.
 */
export class OutcomeStore {
  private n = 0;
  private capacity = 1024;
  private idPrefix: string | undefined;
  /** An id's number after the run's prefix, or NaN when the id is kept whole in `idsKept`. */
  private readonly idNumber = new Column(this.capacity);
  private readonly idsKept = new Map<number, string>();
  private readonly nums = {
    deadlineMs: new Column(this.capacity),
    scheduledAt: new Column(this.capacity),
    sentAt: new Column(this.capacity),
    firstByteAt: new Column(this.capacity),
    firstContentAt: new Column(this.capacity),
    endAt: new Column(this.capacity),
    status: new Column(this.capacity),
    prompt: new Column(this.capacity),
    completion: new Column(this.capacity),
    digest: new Column(this.capacity),
    contentChars: new Column(this.capacity),
    frames: new Column(this.capacity),
  };
  private flags = new Uint8Array(this.capacity);
  private strings = new Uint32Array(this.capacity * STRINGS);
  private readonly labels = new Labels();
  /** Digests not in `formatDigest`'s form, by outcome. */
  private readonly digestsKept = new Map<number, string | null>();

  get length(): number {
    return this.n;
  }

  /** Whether `push` can store this outcome exactly (no field it does not know). */
  static fits(o: ClientOutcome): boolean {
    return o.replica === undefined;
  }

  push(o: ClientOutcome): void {
    if (!OutcomeStore.fits(o)) throw new Error('OutcomeStore: an outcome with a field it does not store');
    const i = this.n++;
    if (i === this.capacity) this.grow();
    this.idPrefix ??= o.id.slice(0, o.id.lastIndexOf('-') + 1);
    const num = o.id.startsWith(this.idPrefix) ? idNumberAt(o.id, this.idPrefix.length) : Number.NaN;
    this.idNumber.data[i] = num;
    if (Number.isNaN(num)) this.idsKept.set(i, o.id);
    const c = this.nums;
    c.deadlineMs.data[i] = o.deadlineMs;
    c.scheduledAt.data[i] = o.scheduledAt;
    c.sentAt.data[i] = o.sentAt;
    c.firstByteAt.data[i] = o.firstByteAt ?? Number.NaN;
    c.firstContentAt.data[i] = o.firstContentAt ?? Number.NaN;
    c.endAt.data[i] = o.endAt;
    c.status.data[i] = o.status;
    let f = o.stream ? STREAM : 0;
    if (o.detail !== undefined) {
      f |= HAS_DETAIL;
    }
    if (o.contentType !== undefined) f |= HAS_CONTENT_TYPE;
    if (o.usage) {
      f |= HAS_USAGE;
      c.prompt.data[i] = o.usage.prompt;
      c.completion.data[i] = o.usage.completion;
    }
    if (o.contentDigest !== undefined) {
      f |= HAS_DIGEST;
      const d = o.contentDigest === null ? Number.NaN : parseInt(o.contentDigest, 16);
      c.digest.data[i] = d;
      if (o.contentDigest !== null && !isFormattedDigest(o.contentDigest) && formatDigest(d) !== o.contentDigest)
        this.digestsKept.set(i, o.contentDigest);
    }
    c.contentChars.data[i] = o.contentChars ?? Number.NaN;
    c.frames.data[i] = o.frames ?? Number.NaN;
    if (o.frames !== undefined && o.contentDigest !== undefined) {
      const keys = Object.keys(o);
      if (keys.indexOf('frames') < keys.indexOf('contentDigest')) f |= FRAMES_FIRST;
    }
    if (o.errorAnswer !== undefined) f |= HAS_ERROR_ANSWER;
    this.flags[i] = f;
    const s = this.strings;
    const base = i * STRINGS;
    s[base] = this.labels.code(o.model);
    s[base + 1] = this.labels.code(o.error);
    s[base + 2] = STREAM_ENDS.indexOf(o.streamEnd);
    s[base + 3] = this.labels.code(o.servedBy);
    s[base + 4] = this.labels.code(o.retryAfter);
    s[base + 5] = this.labels.code(o.contentType);
    // Details (error bodies, local errors) repeat: a day's 194 000 no-capacity answers say 69 000 things.
    s[base + 6] = this.labels.code(o.detail);
    // The router's error answers repeat too (one no-capacity answer, its Retry-After aside, is much like the next).
    s[base + 7] = o.errorAnswer === undefined ? 0 : this.labels.code(JSON.stringify(o.errorAnswer));
    // A request's facts repeat (a few values a parameter): interned like the rest.
    s[base + 8] = this.labels.code(o.request);
  }

  private grow(): void {
    this.capacity *= 2;
    this.idNumber.grow(this.capacity);
    for (const col of Object.values(this.nums)) col.grow(this.capacity);
    const flags = new Uint8Array(this.capacity);
    flags.set(this.flags);
    this.flags = flags;
    const strings = new Uint32Array(this.capacity * STRINGS);
    strings.set(this.strings);
    this.strings = strings;
  }

  /** Every outcome, in the order pushed, as a view over the columns (about 40 bytes each). */
  views(): ClientOutcome[] {
    const View = this.viewClass();
    const out: ClientOutcome[] = new Array<ClientOutcome>(this.n);
    for (let i = 0; i < this.n; i++) out[i] = new View(i);
    return out;
  }

  private viewClass() {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const s = this;
    const c = this.nums;
    const orNull = (v: number) => (Number.isNaN(v) ? null : v);
    const orAbsent = (v: number) => (Number.isNaN(v) ? undefined : v);
    const str = (i: number, k: number) => s.labels.value(s.strings[i * STRINGS + k]!);
    return class OutcomeView implements ClientOutcome {
      constructor(private readonly i: number) {}
      get id() {
        const n = s.idNumber.data[this.i]!;
        return Number.isNaN(n) ? s.idsKept.get(this.i)! : `${s.idPrefix}${n}`;
      }
      get model() {
        return str(this.i, 0)!;
      }
      get stream() {
        return (s.flags[this.i]! & STREAM) !== 0;
      }
      get deadlineMs() {
        return c.deadlineMs.data[this.i]!;
      }
      get scheduledAt() {
        return c.scheduledAt.data[this.i]!;
      }
      get sentAt() {
        return c.sentAt.data[this.i]!;
      }
      get firstByteAt() {
        return orNull(c.firstByteAt.data[this.i]!);
      }
      get firstContentAt() {
        return orNull(c.firstContentAt.data[this.i]!);
      }
      get endAt() {
        return c.endAt.data[this.i]!;
      }
      get status() {
        return c.status.data[this.i]!;
      }
      get error() {
        return str(this.i, 1);
      }
      get streamEnd() {
        return STREAM_ENDS[s.strings[this.i * STRINGS + 2]!]!;
      }
      get detail() {
        return (s.flags[this.i]! & HAS_DETAIL) === 0 ? undefined : str(this.i, 6);
      }
      get usage() {
        return (s.flags[this.i]! & HAS_USAGE) === 0
          ? null
          : { prompt: c.prompt.data[this.i]!, completion: c.completion.data[this.i]! };
      }
      get servedBy() {
        return str(this.i, 3);
      }
      get retryAfter() {
        return str(this.i, 4);
      }
      get request() {
        return str(this.i, 8) ?? undefined;
      }
      get contentType() {
        return (s.flags[this.i]! & HAS_CONTENT_TYPE) === 0 ? undefined : str(this.i, 5);
      }
      get contentDigest() {
        if ((s.flags[this.i]! & HAS_DIGEST) === 0) return undefined;
        const kept = s.digestsKept.get(this.i);
        if (kept !== undefined) return kept;
        const d = c.digest.data[this.i]!;
        return Number.isNaN(d) ? null : formatDigest(d);
      }
      get contentChars() {
        return orAbsent(c.contentChars.data[this.i]!);
      }
      get frames() {
        return orAbsent(c.frames.data[this.i]!);
      }
      get errorAnswer(): ErrorAnswer | undefined {
        return (s.flags[this.i]! & HAS_ERROR_ANSWER) === 0 ? undefined : (JSON.parse(str(this.i, 7)!) as ErrorAnswer);
      }
      /** The outcome as the load generator built it, key for key (what `outcomes.jsonl` holds). */
      toJSON(): ClientOutcome {
        const o: ClientOutcome = {
          id: this.id,
          model: this.model,
          stream: this.stream,
          deadlineMs: this.deadlineMs,
          scheduledAt: this.scheduledAt,
          sentAt: this.sentAt,
          firstByteAt: this.firstByteAt,
          firstContentAt: this.firstContentAt,
          endAt: this.endAt,
          status: this.status,
          error: this.error,
          streamEnd: this.streamEnd,
          usage: this.usage,
          servedBy: this.servedBy,
          retryAfter: this.retryAfter,
        };
        const request = this.request;
        if (request !== undefined) o.request = request;
        // Set after the answer, in this order, by the load generator (absent when it never set them).
        const f = s.flags[this.i]!;
        if (f & HAS_CONTENT_TYPE) o.contentType = this.contentType;
        if (f & HAS_DETAIL) o.detail = this.detail;
        const frames = this.frames;
        if (f & FRAMES_FIRST) o.frames = frames;
        if (f & HAS_DIGEST) o.contentDigest = this.contentDigest;
        const chars = this.contentChars;
        if (chars !== undefined) o.contentChars = chars;
        if (frames !== undefined && !(f & FRAMES_FIRST)) o.frames = frames;
        if (f & HAS_ERROR_ANSWER) o.errorAnswer = this.errorAnswer;
        return o;
      }
    };
  }
}
