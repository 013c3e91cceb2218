import { STATUS_CODES } from 'node:http';
import { Dispatcher, errors } from 'undici';
import type { Clock } from '../core/clock.js';
import { SimError } from '../core/errors.js';
import { playReply, type ReplySink } from '../engine/play-reply.js';
import type { Simulator } from '../simulator.js';
import { readDispatchBody } from './read-dispatch-body.js';
import { dispatchHeaders } from './dispatch-headers.js';

/** undici's Client default for `headersTimeout` and `bodyTimeout` (ms); 0 turns either off. */
const UNDICI_DEFAULT_TIMEOUT_MS = 300_000;

/** One request in flight: the controller undici's handler API hands the caller (pause, resume, abort). */
class Exchange implements Dispatcher.DispatchController {
  aborted = false;
  paused = false;
  reason: Error | null = null;
  headed = false;
  /** When the last body byte was delivered (for the idle body timeout). */
  lastDataAt = 0;
  /** Aborts the simulator's reply: the caller went away, or a timeout fired. */
  readonly hangUp = new AbortController();
  /** Cancels the headers timeout (the head arrived, or the exchange settled). */
  readonly headerWait = new AbortController();
  /** Cancels the body timeout (the exchange settled). */
  readonly bodyWait = new AbortController();
  private finished = false;
  private readonly queue: Array<() => void> = [];

  constructor(
    private readonly handler: Dispatcher.DispatchHandler,
    private readonly onSettled: (ex: Exchange) => void,
    private readonly now: () => number,
  ) {}

  get done(): boolean {
    return this.finished;
  }

  abort(reason: Error): void {
    if (this.finished) return;
    this.aborted = true;
    this.reason = reason;
    this.fail(reason);
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    // undici's Client restarts the body timeout when its parser resumes.
    if (this.paused) this.lastDataAt = this.now();
    this.paused = false;
    while (!this.paused && !this.finished && this.queue.length > 0) this.queue.shift()!();
  }

  /** Runs `event` now, or in order once the caller resumes (its backpressure is honoured, nothing is dropped). */
  deliver(event: () => void): void {
    if (this.finished) return;
    if (this.paused || this.queue.length > 0) this.queue.push(event);
    else event();
  }

  start(): void {
    this.handler.onRequestStart?.(this, {});
  }

  head(status: number, headers: Record<string, string>): void {
    this.deliver(() => this.handler.onResponseStart?.(this, status, headers, STATUS_CODES[status] ?? ''));
  }

  data(chunk: Buffer): void {
    this.deliver(() => this.handler.onResponseData?.(this, chunk));
  }

  end(): void {
    this.deliver(() => {
      this.settle();
      this.handler.onResponseEnd?.(this, {});
    });
  }

  /** Ends the exchange with `error` (the reply stops too, as when a client closes its socket). */
  fail(error: Error): void {
    if (this.finished) return;
    this.settle();
    this.hangUp.abort(error);
    this.handler.onResponseError?.(this, error);
  }

  private settle(): void {
    this.finished = true;
    this.queue.length = 0;
    this.headerWait.abort();
    this.bodyWait.abort();
    this.onSettled(this);
  }
}

/** Sleeps `ms` on `clock`: true when the time passed, false when `signal` cut it short. */
async function slept(clock: Clock, ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await clock.sleep(ms, signal);
    return !signal.aborted;
  } catch {
    return false;
  }
}

const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) =>
    signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
  );

/**
 * Fails the exchange with `HeadersTimeoutError` when no head arrives within `headersMs`, then with
 * `BodyTimeoutError` when no body byte arrives for `bodyMs`, as undici's Client does (0 is off).
 * Like its Client, never while the caller has paused the body (its backpressure): the wait starts
 * over when it resumes.
 */
async function watchTimeouts(ex: Exchange, clock: Clock, headersMs: number, bodyMs: number): Promise<void> {
  if (headersMs > 0) {
    if (await slept(clock, headersMs, ex.headerWait.signal)) return ex.fail(new errors.HeadersTimeoutError());
  } else await aborted(ex.headerWait.signal);
  if (ex.done || !(bodyMs > 0)) return;
  // One timer per idle window, re-armed for what is left of it, not one per chunk.
  for (;;) {
    const idleMs = clock.now() - ex.lastDataAt;
    if (idleMs >= bodyMs && !ex.paused) return ex.fail(new errors.BodyTimeoutError());
    if (!(await slept(clock, idleMs >= bodyMs ? bodyMs : bodyMs - idleMs, ex.bodyWait.signal))) return;
  }
}

function timeoutOf(value: number | null | undefined): number {
  return value === undefined || value === null ? UNDICI_DEFAULT_TIMEOUT_MS : value;
}

/**
 * An undici Dispatcher that serves a simulator in process at `origin`, for code that calls the
 * npm `undici` package (`request`, `stream`, `fetch`) rather than the global `fetch`: install it
 * with `setGlobalDispatcher`. It plays the very same reply scripts as the HTTP server and the msw
 * handlers: each chunk is handed to the caller when the simulator writes it (a stream arrives
 * over simulated time), the caller's abort stops the reply (the ledger records the abandoned
 * attempt), `headersTimeout` and `bodyTimeout` run on the simulator's clock, and a request for any
 * other origin fails with `SIM_UNHANDLED_REQUEST` instead of reaching the network.
 *
 * Not undici's MockAgent: its replies are whole bodies with the status chosen up front, so it can
 * stream neither a body chunk by chunk nor a status the simulator decides after a wait.
 *
 * Not `Pool`, `Client` or `Agent` instances the code builds itself: they never ask the global
 * dispatcher.
 *
 * @example
 * setGlobalDispatcher(createUndiciDispatcher(sim, 'http://llm.test'));
 * const { statusCode, body } = await request('http://llm.test/openai/v1/chat/completions', { method: 'POST', ... });
 */
export function createUndiciDispatcher(sim: Simulator, origin = 'http://throttlelab.local'): Dispatcher {
  const base = new URL(origin).origin;
  const inFlight = new Set<Exchange>();

  async function serve(opts: Dispatcher.DispatchOptions, ex: Exchange): Promise<void> {
    ex.start();
    if (ex.done) return;
    const target = opts.origin === undefined ? '' : new URL(String(opts.origin)).origin;
    if (target !== base) {
      ex.fail(
        new SimError(
          'SIM_UNHANDLED_REQUEST',
          `Failed to send ${opts.method} ${target}${opts.path}: no simulated provider is there. The simulator answers only ${base} in process; point the client at a base URL from its endpoints.`,
        ),
      );
      return;
    }
    if (opts.upgrade || opts.method === 'CONNECT') {
      ex.fail(new errors.NotSupportedError('Upgrades and CONNECT are not simulated'));
      return;
    }
    const arrivalAt = sim.clock.now();
    const raw = await readDispatchBody(opts.body);
    if (ex.done) return;
    const tooLarge = Buffer.byteLength(raw) > sim.scenario.simulator.maxBodyBytes;
    const reply = sim.handle(
      { method: opts.method, url: pathOf(opts), headers: dispatchHeaders(opts.headers), body: tooLarge ? '' : raw },
      { arrivalAt, bodyTooLarge: tooLarge },
    );
    void watchTimeouts(ex, sim.clock, timeoutOf(opts.headersTimeout), timeoutOf(opts.bodyTimeout));
    const bytes = (data: string) => Buffer.from(data, reply.binary ? 'latin1' : 'utf8');
    const sink: ReplySink = {
      head(status, headers) {
        ex.headed = true;
        ex.lastDataAt = sim.clock.now();
        const lower: Record<string, string> = {};
        for (const k in headers) lower[k.toLowerCase()] = headers[k]!;
        ex.headerWait.abort();
        ex.head(status, lower);
      },
      write(data) {
        ex.lastDataAt = sim.clock.now();
        ex.data(bytes(data));
      },
      end(data) {
        if (data !== undefined) ex.data(bytes(data));
        ex.end();
      },
      reset() {
        // What undici says when the peer drops the connection.
        ex.deliver(() => process.nextTick(() => ex.fail(new errors.SocketError('other side closed'))));
      },
    };
    try {
      await playReply(reply, sink, sim.clock, ex.hangUp.signal);
    } catch (error) {
      ex.fail(error instanceof Error ? error : new Error(String(error)));
    }
  }

  class SimulatorDispatcher extends Dispatcher {
    override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
      const ex = new Exchange(
        handler,
        (settled) => inFlight.delete(settled),
        () => sim.clock.now(),
      );
      inFlight.add(ex);
      serve(opts, ex).catch((error: unknown) => ex.fail(error instanceof Error ? error : new Error(String(error))));
      return true;
    }

    override close(callback: () => void): void;
    override close(): Promise<void>;
    override close(callback?: () => void): Promise<void> | void {
      if (callback) return void queueMicrotask(callback);
      return Promise.resolve();
    }

    override destroy(err: Error | null, callback: () => void): void;
    override destroy(callback: () => void): void;
    override destroy(err: Error | null): Promise<void>;
    override destroy(): Promise<void>;
    override destroy(err?: Error | null | (() => void), callback?: () => void): Promise<void> | void {
      const reason = err instanceof Error ? err : new errors.ClientDestroyedError();
      for (const ex of [...inFlight]) ex.fail(reason);
      const done = typeof err === 'function' ? err : callback;
      if (done) return void queueMicrotask(done);
      return Promise.resolve();
    }
  }

  // undici's own request, stream and fetch still hand a dispatcher legacy handlers (onConnect,
  // onHeaders, onData...), and so does Node 20's built-in fetch (undici 6). A plain Dispatcher
  // subclass gets them as they are; `compose` wraps each one into the controller API first
  // (undici's WrapHandler), so the dispatcher above speaks only that one.
  return new SimulatorDispatcher().compose((dispatch) => dispatch);
}

/** The request's path with `query` appended, as undici's Client builds it. */
function pathOf(opts: Dispatcher.DispatchOptions): string {
  if (!opts.query) return opts.path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(opts.query)) {
    if (Array.isArray(v)) for (const x of v) params.append(k, String(x));
    else if (v !== undefined) params.append(k, String(v));
  }
  const q = params.toString();
  if (!q) return opts.path;
  return `${opts.path}${opts.path.includes('?') ? '&' : '?'}${q}`;
}
