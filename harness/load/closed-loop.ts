import autocannon from 'autocannon';
import { headerEntries, applyErrorAnswer } from './error-answer.js';
import type { Clock } from '../../simulator/index.js';
import type { LoadSpec } from '../scenario/schema.js';
import { applyStream, readAnswer, StreamScanner, type ClientOutcome } from './client-outcome.js';
import { clientGraceMs } from './client-grace.js';
import type { LoadProgress, LoadTarget } from './open-loop.js';
import { requestPath } from './request-path.js';
import type { PlannedRequest } from './request-plan.js';

interface Context {
  planned?: PlannedRequest;
  sentAt?: number;
}

/**
 * A closed-loop load through autocannon: `connections` clients each send the next request when
 * the last one is answered (a saturation test). autocannon buffers bodies and does not expose
 * first-byte times, so time-to-first-token is not measured here, and its own latency figures
 * (whose coordinated-omission correction is wrong) are not used: every figure comes from the
 * outcomes recorded below.
 */
export async function runClosedLoop(
  load: LoadSpec,
  target: LoadTarget,
  plan: (n: number) => PlannedRequest,
  clock: Clock,
  onProgress?: (p: LoadProgress) => void,
  signal?: AbortSignal,
): Promise<{ outcomes: ClientOutcome[]; dropped: number }> {
  const url = new URL(target.baseUrl.replace(/\/+$/, '') + '/chat/completions');
  // The base's path, under which each request's API path goes (`/chat/completions`, `/messages`…).
  const base = url.pathname.slice(0, -'/chat/completions'.length);
  const outcomes: ClientOutcome[] = [];
  const byStatus: Record<string, number> = {};
  const open = new Map<string, PlannedRequest & { sentAt: number }>();
  let n = 0;
  const start = clock.now();
  const tick = setInterval(
    () =>
      onProgress?.({
        elapsedMs: clock.now() - start,
        sent: n,
        done: outcomes.length,
        inFlight: open.size,
        dropped: 0,
        byStatus,
      }),
    1000,
  );
  const deadline = load.requests.deadline;
  const timeoutMs = Math.ceil((deadline + clientGraceMs(deadline)) / 1000) * 1000;

  const record = (o: ClientOutcome) => {
    outcomes.push(o);
    const key = o.status === 0 ? (o.error ?? 'none') : String(o.status);
    byStatus[key] = (byStatus[key] ?? 0) + 1;
  };

  const instance = autocannon({
    url: url.toString(),
    connections: load.connections,
    duration: load.duration / 1000,
    maxOverallRequests: load.maxRequests,
    timeout: timeoutMs / 1000,
    requests: [
      {
        method: 'POST',
        setupRequest(req: Record<string, unknown>, context: Context) {
          const p = plan(n++);
          const sentAt = clock.now();
          context.planned = p;
          context.sentAt = sentAt;
          open.set(p.id, { ...p, sentAt });
          return { ...req, method: 'POST', path: requestPath(base, p.path), headers: p.headers, body: p.body };
        },
        onResponse(status: number, body: string, context: Context, headers: Record<string, string>) {
          const p = context.planned!;
          open.delete(p.id);
          const endAt = clock.now();
          const draft = { status, streamEnd: null } as ClientOutcome;
          let error: string | null = null;
          let detail: string | null;
          // A stream is read as SSE whatever its content type says, as client libraries read it.
          if (p.stream && status >= 200 && status < 300) {
            const scanner = new StreamScanner();
            scanner.push(body);
            applyStream(draft, scanner);
            detail = draft.detail ?? null;
          } else {
            const answer = readAnswer(status, body);
            error = answer.error;
            detail = answer.detail;
            draft.usage = answer.usage;
            draft.contentDigest = answer.contentDigest;
            if (answer.contentChars !== undefined) draft.contentChars = answer.contentChars;
          }
          const { streamEnd, usage = null, contentDigest, contentChars, frames } = draft;
          applyErrorAnswer(draft, requestPath(base, p.path), headerEntries(headers), body);
          record({
            id: p.id,
            model: p.model,
            stream: p.stream,
            deadlineMs: p.deadlineMs,
            scheduledAt: context.sentAt!,
            sentAt: context.sentAt!,
            firstByteAt: null,
            firstContentAt: null,
            endAt,
            status,
            error,
            ...(detail ? { detail } : {}),
            streamEnd,
            usage,
            servedBy: headers?.['x-throttlelab-provider'] ?? null,
            retryAfter: headers?.['retry-after'] ?? null,
            contentType: headers?.['content-type'] ?? null,
            contentDigest: contentDigest ?? null,
            ...(contentChars !== undefined ? { contentChars } : {}),
            ...(frames !== undefined ? { frames } : {}),
            ...(draft.errorAnswer ? { errorAnswer: draft.errorAnswer } : {}),
          });
        },
      },
    ] as never,
  });
  const interrupt = () => (instance as unknown as { stop(): void }).stop();
  signal?.addEventListener('abort', interrupt);
  await instance;
  signal?.removeEventListener('abort', interrupt);
  // Requests autocannon gave up on (its timeout) never reached onResponse: they are timeouts.
  // Requests still open when the duration ran out were cut by the load's end, not by the router,
  // and are left out (as wrk does); `dropped` counts them.
  const endAt = clock.now();
  let cut = 0;
  for (const p of open.values()) {
    if (endAt - p.sentAt < timeoutMs || signal?.aborted) {
      cut++;
      continue;
    }
    record({
      id: p.id,
      model: p.model,
      stream: p.stream,
      deadlineMs: p.deadlineMs,
      scheduledAt: p.sentAt,
      sentAt: p.sentAt,
      firstByteAt: null,
      firstContentAt: null,
      endAt: p.sentAt + timeoutMs,
      status: 0,
      error: 'client-timeout',
      streamEnd: null,
      usage: null,
      servedBy: null,
      retryAfter: null,
    });
  }
  clearInterval(tick);
  onProgress?.({ elapsedMs: clock.now() - start, sent: n, done: outcomes.length, inFlight: 0, dropped: cut, byStatus });
  return { outcomes, dropped: cut };
}
