import { Pool } from 'undici';
import { headerEntries, applyErrorAnswer } from './error-answer.js';
import type { Clock } from '../../simulator/index.js';
import type { LoadSpec } from '../scenario/schema.js';
import {
  applyAnswer,
  applyFailure,
  applyHead,
  applyStream,
  pendingOutcome,
  StreamScanner,
  type ClientOutcome,
} from './client-outcome.js';
import { clientGraceMs } from './client-grace.js';
import { requestPath } from './request-path.js';
import type { PlannedRequest } from './request-plan.js';
import { arrivalOffsets } from './schedule.js';

/** Where a load is sent: the router's OpenAI-compatible base URL, or a fleet's, one per replica. */
export interface LoadTarget {
  /** e.g. `http://127.0.0.1:8080/v1`. */
  baseUrl: string;
  /** A fleet: each replica's base URL, and which replica request `n` goes to. */
  replicas?: { baseUrls: readonly string[]; pick(n: number): number };
}

/** Live counts for a progress display. */
export interface LoadProgress {
  elapsedMs: number;
  sent: number;
  done: number;
  inFlight: number;
  /** Requests not sent because `maxInFlight` were already open (the load generator was saturated). */
  dropped: number;
  byStatus: Record<string, number>;
}

const INTERRUPTED = Symbol('interrupted-by-the-user');

/** Which of the schedule's arrivals one load worker of several sends (see `inSegment`). */
export interface LoadSegment {
  /** 0-based: this worker's place among `count`. */
  index: number;
  count: number;
}

/** Options of `runOpenLoop` beyond the load and its target. */
export interface OpenLoopOptions {
  /** Send only this segment's arrivals (a load worker of several); all of them when absent. */
  segment?: LoadSegment;
  /** Epoch ms the schedule starts at (a barrier shared by load workers); 20 ms from now when absent. */
  startAt?: number;
}

/**
 * Whether arrival `n` of the schedule is this segment's: arrivals are dealt round-robin (k6's
 * striped execution segments), so each worker spans the whole run at 1/count of every ramp
 * stage's rate, and together they send exactly the one-worker schedule.
 */
export function inSegment(n: number, segment: LoadSegment | undefined): boolean {
  return segment === undefined || n % segment.count === segment.index;
}

/**
 * Sends requests at scheduled times regardless of how fast answers come (an open model, as
 * wrk2 and k6's constant-arrival-rate do), and times every request from its scheduled send time,
 * so a slow router cannot hide its stalls by being sent fewer requests.
 */
export async function runOpenLoop(
  load: LoadSpec,
  target: LoadTarget,
  plan: (n: number) => PlannedRequest,
  clock: Clock,
  onProgress?: (p: LoadProgress) => void,
  signal?: AbortSignal,
  options: OpenLoopOptions = {},
): Promise<{ outcomes: ClientOutcome[]; dropped: number }> {
  const segment = options.segment;
  // Each of `count` workers may hold its share of the requests in flight.
  const maxInFlight = Math.ceil(load.maxInFlight / (segment?.count ?? 1));
  const urls = (target.replicas?.baseUrls ?? [target.baseUrl]).map((b) => new URL(b.replace(/\/+$/, '') + '/'));
  const pools = urls.map(
    (url) =>
      new Pool(url.origin, {
        connections: Math.ceil(Math.min(maxInFlight, 2048) / urls.length),
        pipelining: 1,
        keepAliveTimeout: 30_000,
      }),
  );
  const outcomes: ClientOutcome[] = [];
  const byStatus: Record<string, number> = {};
  const pending = new Set<Promise<void>>();
  const open = new Set<AbortController>();
  let dropped = 0;
  let sent = 0;
  const start = options.startAt ?? clock.now() + 20;
  const tick = setInterval(
    () =>
      onProgress?.({
        elapsedMs: clock.now() - start,
        sent,
        done: outcomes.length,
        inFlight: pending.size,
        dropped,
        byStatus,
      }),
    1000,
  );

  const send = async (p: PlannedRequest, scheduledAt: number, replica: number | undefined) => {
    const url = urls[replica ?? 0]!;
    const pool = pools[replica ?? 0]!;
    // The base's path and the request's API path (`/chat/completions`, `/messages`…): which API answers.
    const path = requestPath(url.pathname, p.path);
    const sentAt = clock.now();
    const out: ClientOutcome = {
      ...pendingOutcome(p, scheduledAt, sentAt),
      ...(replica !== undefined ? { replica } : {}),
    };
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), p.deadlineMs + clientGraceMs(p.deadlineMs));
    open.add(ac);
    try {
      const res = await pool.request({
        path,
        method: 'POST',
        headers: p.headers,
        body: p.body,
        signal: ac.signal,
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      applyHead(out, clock.now(), res.statusCode, (name) => {
        const v = res.headers[name];
        return (Array.isArray(v) ? v[0] : v) ?? null;
      });
      // A stream is read as SSE whatever its content type says, as client libraries read it.
      if (p.stream && res.statusCode >= 200 && res.statusCode < 300) {
        const scanner = new StreamScanner();
        const decoder = new TextDecoder();
        for await (const chunk of res.body) {
          if (scanner.push(decoder.decode(chunk, { stream: true }))) out.firstContentAt = clock.now();
        }
        if (scanner.push(decoder.decode()) || scanner.flush()) out.firstContentAt ??= clock.now();
        applyStream(out, scanner);
      } else {
        const body = await res.body.text();
        applyAnswer(out, res.statusCode, body);
        applyErrorAnswer(out, path, headerEntries(res.headers), body);
      }
    } catch (error) {
      // Any abort here is the client's timer: a request the user's stop cut is dropped below.
      applyFailure(out, error, { gaveUp: ac.signal.aborted, stopped: ac.signal.aborted });
    } finally {
      clearTimeout(timer);
      open.delete(ac);
      out.endAt = clock.now();
      // A request cut short because the user stopped the run says nothing about the router: a
      // stream the stop cut is not a stream the router ended silently.
      if (ac.signal.reason === INTERRUPTED || (signal?.aborted && out.error !== null && out.status === 0)) {
        dropped++;
      } else {
        outcomes.push(out);
        const key = out.status === 0 ? (out.error ?? 'none') : String(out.status);
        byStatus[key] = (byStatus[key] ?? 0) + 1;
      }
    }
  };

  // One listener for the user's stop, however many requests are open.
  const interrupt = () => {
    for (const ac of open) ac.abort(INTERRUPTED);
  };
  signal?.addEventListener('abort', interrupt, { once: true });
  // Request `n` is planned from arrival `n` of the schedule, whichever worker sends it.
  let n = -1;
  for (const offset of arrivalOffsets(load)) {
    n++;
    if (!inSegment(n, segment)) continue;
    if (signal?.aborted) break;
    const due = start + offset;
    const wait = due - clock.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    if (signal?.aborted) break;
    if (pending.size >= maxInFlight) {
      dropped++;
      continue;
    }
    const replica = target.replicas?.pick(n);
    const p = plan(n);
    sent++;
    const task = send(p, due, replica).finally(() => pending.delete(task));
    pending.add(task);
  }
  await Promise.all(pending);
  signal?.removeEventListener('abort', interrupt);
  clearInterval(tick);
  onProgress?.({ elapsedMs: clock.now() - start, sent, done: outcomes.length, inFlight: 0, dropped, byStatus });
  await Promise.all(pools.map((pool) => pool.close()));
  return { outcomes, dropped };
}
