import type { LoadSpec } from '../scenario/schema.js';
import { applyErrorAnswer } from '../load/error-answer.js';
import {
  applyAnswer,
  applyFailure,
  applyHead,
  applyStream,
  pendingOutcome,
  StreamScanner,
  type ClientOutcome,
} from '../load/client-outcome.js';
import { clientGraceMs } from '../load/client-grace.js';
import { OutcomeStore } from '../load/outcome-store.js';
import { requestPath } from '../load/request-path.js';
import type { PlannedRequest } from '../load/request-plan.js';
import { arrivalOffsets } from '../load/schedule.js';
import { Cancel, type AbortLike } from '../../simulator/index.js';
import type { SimClock } from './sim-clock.js';

/** A router in the same process: a fetch handler, as Hono, itty-router, Next.js route handlers or `routerFetchHandler` are. */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * A router's chat endpoint called in process without Request, Response or Web streams (the
 * reference router offers one): the same answer, a good deal cheaper per request.
 */
export type DirectHandler = (call: {
  headers: Readonly<Record<string, string>>;
  body: string;
  /** The client's; a plain `Cancel` rather than an AbortSignal, which costs far more per request. */
  signal: AbortLike;
  /** The API's path (`/v1/responses`…); chat completions when absent. */
  path?: string;
}) => Promise<
  | { status: number; headers: Record<string, string>; body: string }
  | { status: 200; headers: Record<string, string>; frames: AsyncIterable<string> }
>;

async function* decodeStream(reader: ReadableStreamDefaultReader<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield decoder.decode(value, { stream: true });
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

async function collect(frames: AsyncIterator<string>): Promise<string> {
  let out = '';
  for (let r = await frames.next(); !r.done; r = await frames.next()) out += r.value;
  return out;
}

/** Where the in-process load sends: each request's API path under this base URL (the host is never resolved). */
export const SIM_ROUTER_BASE = 'http://router.simulated/v1';

const GAVE_UP = Symbol('client-gave-up');
const CUT = Symbol('load-ended');

/**
 * The load generators of `harness/load`, in simulated time and in process: the same request plan,
 * arrival schedule, client deadline and outcome recording, with each request handed to `handler`
 * as a `Request` and each answer read as a client reads it (stream chunk by chunk). Open loop:
 * requests at their scheduled times, at most `maxInFlight` open. Closed loop: `connections`
 * clients each sending the next request when the last is answered, until the duration ends
 * (requests still open then are cut and not judged, as with autocannon).
 */
export async function runSimulatedLoad(
  load: LoadSpec,
  handler: FetchHandler,
  plan: (n: number) => PlannedRequest,
  clock: SimClock,
  direct?: DirectHandler,
  /** The user stopped the run: no request is sent after it; those open are cut and not judged. */
  signal?: AbortSignal,
): Promise<{ outcomes: ClientOutcome[]; dropped: number }> {
  const basePath = new URL(SIM_ROUTER_BASE).pathname;
  const chatPath = '/chat/completions';
  // Each outcome goes into columns once its request is over: a day's million stay small.
  const outcomes = new OutcomeStore();
  /** Each open request's way to stop it (the client giving up, or the load's end). */
  const open = new Set<(reason: symbol) => void>();
  let dropped = 0;

  const send = async (p: PlannedRequest, scheduledAt: number): Promise<void> => {
    const sentAt = clock.now();
    const out = pendingOutcome(p, scheduledAt, sentAt);
    // The request's one cancellation (the client giving up, or the load's end), which the router
    // and every wait of the request derive from.
    const ac = new Cancel();
    // Every wait of the request (the answer, then each chunk) ends at once when the client stops.
    // One promise per wait whose rejection `stop` holds, rather than a Promise.race per chunk
    // against a give-up promise (which also kept a reaction per chunk alive until the request ended).
    let interrupt: ((reason: unknown) => void) | undefined;
    const orStop = <T>(wait: Promise<T>): Promise<T> => {
      if (ac.aborted) {
        wait.catch(() => {});
        return Promise.reject(ac.reason);
      }
      return new Promise<T>((resolve, reject) => {
        interrupt = reject;
        wait.then(resolve, reject);
      });
    };
    const stop = (reason: symbol) => {
      ac.abort(reason);
      interrupt?.(reason);
    };
    const cancelTimer = clock.setTimer(p.deadlineMs + clientGraceMs(p.deadlineMs), () => stop(GAVE_UP));
    open.add(stop);
    try {
      let status: number;
      let header: (name: string) => string | null;
      let answerHeaders: () => Iterable<[string, string]>;
      let text: string | Promise<string> | undefined;
      let frames: AsyncIterator<string> | undefined;
      if (direct) {
        const headers: Record<string, string> = {};
        for (const k in p.headers) headers[k.toLowerCase()] = p.headers[k]!;
        const call = { headers, body: p.body, signal: ac };
        const a = await orStop(direct(p.path === chatPath ? call : { ...call, path: `/v1${p.path}` }));
        status = a.status;
        header = (name) => a.headers[name] ?? null;
        answerHeaders = () => Object.entries(a.headers);
        if ('frames' in a) frames = a.frames[Symbol.asyncIterator]();
        else text = a.body;
      } else {
        // A Request takes only a real AbortSignal: one that follows the request's cancellation.
        const fetchAbort = new AbortController();
        if (ac.aborted) fetchAbort.abort(ac.reason);
        else ac.addEventListener('abort', () => fetchAbort.abort(ac.reason));
        const request = new Request(`${SIM_ROUTER_BASE}${p.path}`, {
          method: 'POST',
          headers: p.headers,
          body: p.body,
          signal: fetchAbort.signal,
        });
        const res = await orStop(handler(request));
        status = res.status;
        header = (name) => res.headers.get(name);
        answerHeaders = () => res.headers.entries();
        if (res.body && p.stream && status >= 200 && status < 300) frames = decodeStream(res.body.getReader());
        else text = res.text();
      }
      applyHead(out, clock.now(), status, header);
      // A stream is read as SSE whatever its content type says, as client libraries read it
      // (and as the load generators of `harness/load` read it).
      if (p.stream && status >= 200 && status < 300) {
        const scanner = new StreamScanner();
        const chunks: AsyncIterator<string> =
          frames ??
          (async function* () {
            yield await text!;
          })();
        try {
          for (;;) {
            const chunk = await orStop(chunks.next());
            if (chunk.done) break;
            if (scanner.push(chunk.value)) out.firstContentAt = clock.now();
          }
        } catch (error) {
          chunks.return?.()?.catch(() => {});
          throw error;
        }
        if (scanner.flush()) out.firstContentAt ??= clock.now();
        applyStream(out, scanner);
      } else {
        if (frames) text = collect(frames);
        const body = await orStop(Promise.resolve(text ?? ''));
        applyAnswer(out, status, body);
        applyErrorAnswer(out, requestPath(basePath, p.path), answerHeaders(), body);
      }
    } catch (error) {
      applyFailure(out, error, { gaveUp: ac.reason === GAVE_UP, stopped: ac.aborted });
    } finally {
      cancelTimer();
      open.delete(stop);
      out.endAt = clock.now();
      if (ac.reason === CUT) dropped++;
      else outcomes.push(out);
    }
  };

  const interrupt = () => {
    for (const stop of open) stop(CUT);
  };
  signal?.addEventListener('abort', interrupt, { once: true });
  if (load.mode === 'open') {
    const start = clock.now() + 20;
    const pending = new Set<Promise<void>>();
    let n = 0;
    for (const offset of arrivalOffsets(load)) {
      if (signal?.aborted) break;
      const due = start + offset;
      await clock.sleep(due - clock.now());
      if (pending.size >= load.maxInFlight) {
        dropped++;
        continue;
      }
      const task = send(plan(n++), due).finally(() => pending.delete(task));
      pending.add(task);
    }
    await Promise.all(pending);
  } else {
    const start = clock.now();
    const end = start + load.duration;
    let n = 0;
    const client = async () => {
      while (clock.now() < end && n < load.maxRequests && !signal?.aborted) await send(plan(n++), clock.now());
    };
    const cut = clock.setTimer(load.duration, () => {
      for (const stop of open) stop(CUT);
    });
    await Promise.all(Array.from({ length: load.connections }, client));
    cut();
  }
  signal?.removeEventListener('abort', interrupt);
  return { outcomes: outcomes.views(), dropped };
}
