import { count, MAX_EVIDENCE, type CheckInput, type CheckResult } from './types.js';

/** No 200 stream ended silently: each ended with `[DONE]` or an explicit error event. */
export function checkStreamIntegrity({ outcomes }: CheckInput): CheckResult {
  const streams = outcomes.filter((o) => o.stream && o.status === 200);
  const silent = streams.filter((o) => o.streamEnd === 'silent');
  const errored = streams.filter((o) => o.streamEnd === 'error-event').length;
  return {
    id: 'stream-integrity',
    title: 'Streams never end silently',
    meaning:
      'Every stream that started ended with [DONE] or an explicit error event, never a silent close that looks complete.',
    verdict: streams.length === 0 ? 'skip' : silent.length === 0 ? 'pass' : 'fail',
    figure:
      streams.length === 0
        ? 'no streams were answered'
        : `${silent.length} of ${count(streams.length, 'stream')} ended silently (${errored} ended with an error event)`,
    value: silent.length,
    unit: 'streams',
    violations: silent.length,
    evidence: silent
      .slice(0, MAX_EVIDENCE)
      .map((o) => ({ at: o.endAt, correlationId: o.id, detail: 'stream closed without [DONE] or an error event' })),
  };
}
