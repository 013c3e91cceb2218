import type { LedgerRow } from '../../simulator/index.js';
import { isEventStreamType, streamCompleted, type ClientOutcome } from '../load/client-outcome.js';
import { attemptsByRequest } from './attempts-by-request.js';
import { succeededUpstream } from './served-answers.js';
import { starvationDuring, starvationWords, type Starvation } from './starvation.js';
import { count, MAX_EVIDENCE, type CheckInput, type CheckResult } from './types.js';

const is2xx = (o: ClientOutcome) => o.status >= 200 && o.status < 300;

/** Whether an attempt's answer broke on its way (an error event, a cut, a reset, garbage), not ran to its end. */
const broke = (r: LedgerRow) =>
  r.end === 'error-event' || r.end === 'truncated' || r.end === 'reset' || r.end === 'malformed';

/**
 * A stream the client gave up on (its deadline and grace passed with the stream still open, no
 * end read) although every attempt behind it had ended upstream before then: the router had
 * nothing more to relay and left the stream open, never ending it. A stream still relaying an
 * attempt when the client gave up is late (the deadline check's), not abandoned.
 */
function abandoned(o: ClientOutcome, attempts: readonly LedgerRow[]): boolean {
  if (o.streamEnd !== null || o.error !== 'client-timeout') return false;
  return attempts.every((r) => r.endAt !== null && r.endAt < o.endAt);
}

/**
 * No stream that started ended silently, or never ended. Streams are read as clients read them, whatever their
 * content type: one is complete when it ends with `[DONE]` or with a `finish_reason`, or ended
 * honestly with an error event. A finish without `[DONE]` and a missing or wrong content type are
 * warnings (findings of their own), never failures. A stream that ends as complete although every
 * attempt behind it (by the ledger) broke upstream ended silently too, in disguise: its `[DONE]`
 * or `finish_reason` claims an end no provider sent. So did one the router left open after its
 * upstream ended, until the client gave up (`abandoned`): a client without a deadline of its own
 * would wait for it for ever.
 */
export function checkStreamIntegrity(input: CheckInput): CheckResult {
  const { outcomes, rows } = input;
  const streams = outcomes.filter((o) => o.stream && is2xx(o));
  const byRequest = attemptsByRequest(rows);
  const disguised = (o: ClientOutcome) => {
    if (!streamCompleted(o)) return false;
    const attempts = byRequest.get(o.id) ?? [];
    return attempts.some(broke) && !attempts.some(succeededUpstream);
  };
  const neverEnded = (o: ClientOutcome) => abandoned(o, byRequest.get(o.id) ?? []);
  const silent = streams.filter((o) => o.streamEnd === 'silent' || disguised(o) || neverEnded(o));
  // A stream left open is the router's defect only if it had CPU to end it: from its last attempt's
  // end to the client's give-up, the harness's loop or the router's process was not starved
  // throughout. Otherwise it is the machine (INCONCLUSIVE), as late answers are for `deadline`.
  const starvedOpen = new Map<string, Starvation & { gapMs: number }>();
  for (const o of silent.filter((x) => x.streamEnd === null)) {
    const lastEnd = Math.max(...(byRequest.get(o.id) ?? []).map((r) => r.endAt ?? Infinity));
    if (!Number.isFinite(lastEnd)) continue;
    const s = starvationDuring(input, lastEnd, o.endAt, o.replica);
    if (s.ms >= o.endAt - lastEnd) starvedOpen.set(o.id, { ...s, gapMs: o.endAt - lastEnd });
  }
  const proven = silent.filter((o) => !starvedOpen.has(o.id));
  const starvedWords = [...starvedOpen.values()].sort((a, b) => b.ms - a.ms)[0];
  const disguisedCount = silent.filter((o) => streamCompleted(o)).length;
  const openCount = silent.filter((o) => o.streamEnd === null).length;
  const errored = streams.filter((o) => o.streamEnd === 'error-event').length;
  const noDone = streams.filter((o) => o.streamEnd === 'finish');
  const badType = streams.filter((o) => o.contentType !== undefined && !isEventStreamType(o.contentType));
  const warnings: string[] = [];
  if (noDone.length > 0)
    warnings.push(`${count(noDone.length, 'stream')} ended with a finish_reason but no [DONE] (complete; a warning)`);
  if (badType.length > 0) {
    const types = [...new Set(badType.map((o) => o.contentType ?? 'none'))].slice(0, 3).join(', ');
    warnings.push(`${count(badType.length, 'stream')} not labelled text/event-stream (content type: ${types})`);
  }
  const detail = (o: ClientOutcome) =>
    o.streamEnd === null
      ? `stream left open after ${count(o.frames ?? 0, 'frame')}: no [DONE], finish_reason or error event ${Math.round(o.endAt - o.sentAt)} ms after it was sent, when the client gave up, though every attempt behind it had ended (${(byRequest.get(o.id) ?? []).map((r) => `${r.provider} ${r.end}`).join(', ') || 'none reached a provider'})`
      : o.streamEnd !== 'silent'
        ? `stream ended as complete (${o.streamEnd === 'done' ? '[DONE]' : 'a finish_reason'}) though every attempt behind it broke upstream (${(byRequest.get(o.id) ?? []).map((r) => `${r.provider} ${r.end}`).join(', ')})`
        : o.frames === 0
          ? `a stream was asked for; the 2xx body held no SSE frame (content type ${o.contentType ?? 'none'})`
          : `stream closed after ${count(o.frames ?? 0, 'frame')} without [DONE], a finish_reason or an error event`;
  return {
    id: 'stream-integrity',
    title: 'Streams never end silently',
    meaning:
      'Every stream that started ended as a client accepts it ([DONE] or a finish_reason) or with an explicit error event, never a silent close that looks complete, nor a [DONE] after its upstream broke, nor left open after its upstream ended.',
    verdict:
      streams.length === 0 ? 'skip' : silent.length === 0 ? 'pass' : proven.length === 0 ? 'inconclusive' : 'fail',
    ...(silent.length > 0 && proven.length === 0 && starvedWords
      ? {
          reason: `machine overloaded: each of the ${count(starvedOpen.size, 'stream')} left open after its upstream ended had no CPU to end it: ${starvationWords(starvedWords)} of the ${Math.round(starvedWords.gapMs)} ms until the client gave up`,
        }
      : {}),
    figure:
      (streams.length === 0
        ? 'no streams were answered'
        : `${silent.length} of ${count(streams.length, 'stream')} ended silently${disguisedCount ? ` (${disguisedCount} as complete though their upstream broke)` : ''}${openCount ? ` (${openCount} never ended: left open until the client gave up)` : ''} (${errored} ended with an error event)`) +
      (warnings.length ? `; warning: ${warnings.join('; ')}` : ''),
    value: silent.length,
    unit: 'streams',
    violations: silent.length,
    evidence: silent.slice(0, MAX_EVIDENCE).map((o) => ({ at: o.endAt, correlationId: o.id, detail: detail(o) })),
    details: { finishWithoutDone: noDone.length, notEventStream: badType.length, leftOpen: openCount, warnings },
  };
}
