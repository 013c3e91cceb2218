import type { CapacityBook } from '../core/capacity.js';
import { Cancel, type AbortLike } from '../core/cancel.js';
import { startTimer, type Clock } from '../core/clock.js';
import { remainingMs, type Deadline } from '../core/deadline.js';
import type { AttemptOutcome } from '../core/types.js';
import { AbortReason } from './abort-reason.js';

/** Bytes of answers being read from every provider at once, against one bound. */
export interface BufferBudget {
  held: number;
  readonly max: number;
}

/**
 * What a JSON answer holds at its peak per byte read: its bytes, their text and the parsed answer
 * are all alive while it is decoded (a 60 MB answer took about 180 MB, uncounted beyond its bytes).
 */
export const JSON_ANSWER_MEMORY_FACTOR = 3;

/** What the control needs from the router. */
interface ControlEnv {
  clock: Clock;
  capacity: CapacityBook;
  firstTokenTimeoutMs: number;
  buffers: BufferBudget;
}

// Whether a body chunk holds anything but the blank lines a held request is padded with.
function hasContent(chunk: Uint8Array): boolean {
  for (let i = 0; i < chunk.length; i++) {
    const c = chunk[i]!;
    if (c !== 0x0a && c !== 0x0d && c !== 0x20 && c !== 0x09) return true;
  }
  return false;
}

/**
 * What one attempt holds while it runs and lets go of once: its own cancellation (its timers, the
 * client's abort, the buffer bound), its capacity reservation and the answer bytes it counts
 * against the shared bound. Which phase it is in says what a timeout cut.
 */
export class AttemptControl {
  /** Derived from the request's signal: a plain object, as nothing outside the process ever listens to it. */
  readonly cancel = new Cancel();
  phase: 'headers' | 'first-token' | 'body' = 'headers';
  /** Set once a committed stream owns what the attempt holds: the stream's end lets it go. */
  handedOff = false;
  /** Keep-alive filler came before any content: the provider holds the request in its queue. */
  held = false;
  /** What the attempt counts against the shared bound now. */
  private buffered = 0;
  /** Body bytes read so far, and those the answer's content-length announced (reserved before reading). */
  private received = 0;
  private declared = 0;
  private bodyStarted = false;
  private cancelFirstToken: (() => void) | undefined;
  private cancelTimer: () => void;
  private readonly onParentAbort = () => this.cancel.abort(AbortReason.CLIENT_GONE);
  private readonly onTimeout = () => this.cancel.abort(AbortReason.TIMEOUT);

  /** Starts the attempt's timer (`timeoutMs`) and reserves `tokens` of the target's capacity. */
  constructor(
    private readonly env: ControlEnv,
    private readonly signal: AbortLike,
    private readonly targetId: string,
    private readonly tokens: number,
    timeoutMs: number,
  ) {
    signal.addEventListener('abort', this.onParentAbort, { once: true });
    this.cancelTimer = startTimer(env.clock, timeoutMs, this.onTimeout);
    // Reserved before the first await: requests selected in the same tick must see each other.
    env.capacity.reserve(targetId, tokens);
  }

  /** Replaces the attempt's timer: a committed stream is bounded by the deadline alone. */
  restartTimer(ms: number): void {
    this.cancelTimer();
    this.cancelTimer = startTimer(this.env.clock, ms, this.onTimeout);
  }

  /**
   * Counts a chunk of a JSON answer against the shared bound. A held request (DeepSeek) answers
   * 200 at once and then sends only blank lines: until the body's first real byte, the first-token
   * timer runs as well as the attempt's own.
   */
  onBodyChunk(chunk: Uint8Array, deadline: Deadline): void {
    // One bound over every answer being read at once: six 60 MB answers must not take 1.3 GB.
    // Bytes a content-length announced are reserved already; only those past it count here.
    const before = Math.max(this.declared, this.received);
    this.received += chunk.length;
    this.count(Math.max(this.declared, this.received) - before);
    if (this.bodyStarted) return;
    this.bodyStarted = hasContent(chunk);
    if (!this.bodyStarted && chunk.length > 0) this.held = true;
    if (!this.bodyStarted && !this.cancelFirstToken) {
      this.phase = 'first-token';
      const { clock, firstTokenTimeoutMs } = this.env;
      const ms = Math.min(firstTokenTimeoutMs, remainingMs(deadline, clock.now()));
      this.cancelFirstToken = startTimer(clock, ms, this.onTimeout);
    } else if (this.bodyStarted && this.cancelFirstToken) {
      this.phase = 'body';
      this.cancelFirstToken();
    }
  }

  /**
   * Reserves what a JSON answer that announced `bytes` (its content-length) will hold at its peak,
   * before a byte is read: false, the attempt cancelled, when that would pass the shared bound.
   */
  reserveAnswer(bytes: number): boolean {
    if (!this.fits(bytes * JSON_ANSWER_MEMORY_FACTOR)) return false;
    this.declared = bytes;
    this.count(bytes * JSON_ANSWER_MEMORY_FACTOR);
    return true;
  }

  /**
   * Counts what decoding and parsing the answer read will hold besides its bytes, before it is
   * done: false, the attempt cancelled, when that would pass the shared bound.
   */
  reserveDecoding(): boolean {
    const more = this.received * JSON_ANSWER_MEMORY_FACTOR - this.buffered;
    if (more <= 0) return true;
    if (!this.fits(more)) return false;
    this.count(more);
    return true;
  }

  private fits(bytes: number): boolean {
    const { held, max } = this.env.buffers;
    if (held + bytes <= max) return true;
    this.cancel.abort(AbortReason.OVER_BUDGET);
    return false;
  }

  private count(bytes: number): void {
    if (bytes <= 0) return;
    const buffers = this.env.buffers;
    this.buffered += bytes;
    buffers.held += bytes;
    if (buffers.held > buffers.max) this.cancel.abort(AbortReason.OVER_BUDGET);
  }

  /** The JSON answer is read: its first-token timer, if one ran, stops. */
  bodyRead(): void {
    this.cancelFirstToken?.();
  }

  /** What a send or read that threw means, by why the attempt's cancellation fired (if it did). */
  outcomeOf(error: unknown): AttemptOutcome {
    const reason = this.cancel.reason;
    if (reason === AbortReason.CLIENT_GONE) return { kind: 'aborted' };
    if (reason === AbortReason.TIMEOUT)
      return this.held && this.phase === 'first-token'
        ? { kind: 'timeout', phase: this.phase, held: true }
        : { kind: 'timeout', phase: this.phase };
    // Too much is being read at once: this answer is given up, as a provider too slow to fit would be.
    if (reason === AbortReason.OVER_BUDGET) return { kind: 'server_error', status: 200 };
    return { kind: 'network_error', message: (error as Error)?.message ?? String(error) };
  }

  /** Lets go of everything the attempt holds: its timer, its listener, its reservation and its buffers. */
  cleanup(): void {
    this.cancelTimer();
    this.signal.removeEventListener('abort', this.onParentAbort);
    this.env.capacity.release(this.targetId, this.tokens);
    this.env.buffers.held -= this.buffered;
    this.buffered = 0;
  }
}
