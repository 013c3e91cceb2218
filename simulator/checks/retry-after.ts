import { MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';
import { attemptsByScope, deriveWindows, firstArrivalAtOrAfter } from './windows.js';

/**
 * Once a provider announced a wait, no attempt on that scope (key and model, or key) arrived
 * before the wait ended. A window starts when the hinted answer left the simulator; the tolerance
 * (10 ms by default) absorbs timer granularity and loopback latency, never a real early retry.
 */
export function checkRetryAfter({ rows, scenario }: CheckInput): CheckResult {
  const { tolerance, scope } = scenario.expect.retryAfter;
  const windows = deriveWindows(rows, scope);
  const byScope = attemptsByScope(rows, scope);
  const evidence: Evidence[] = [];
  let violations = 0;
  let worst = 0;
  for (const w of windows) {
    const list = byScope.get(w.scope) ?? [];
    for (let i = firstArrivalAtOrAfter(list, w.start); i < list.length && list[i]!.arrivalAt < w.end - tolerance; i++) {
      const a = list[i]!;
      if (a.seq === w.seq) continue;
      violations++;
      const early = w.end - a.arrivalAt;
      worst = Math.max(worst, early);
      if (evidence.length < MAX_EVIDENCE) evidence.push({ at: a.arrivalAt, correlationId: a.correlationId, provider: a.provider, key: a.key, model: a.model, detail: `arrived ${Math.round(early)} ms before the end of a ${Math.round(w.hintMs)} ms wait announced by attempt #${w.seq} (${w.hintForm})` });
    }
  }
  return {
    id: 'retry-after',
    title: 'Waits honour Retry-After',
    meaning: 'After a provider announced a wait (Retry-After, retry-after-ms, reset headers or a body hint), nothing was sent to that key and model before it ended.',
    verdict: violations === 0 ? 'pass' : 'fail',
    figure: windows.length === 0 ? 'no waits were announced' : `worst early arrival ${Math.round(worst)} ms; ${violations} early attempts over ${windows.length} announced waits`,
    value: worst,
    unit: 'ms',
    threshold: `tolerance ${tolerance} ms, scope ${scope}`,
    violations,
    evidence,
    details: { windows: windows.length },
  };
}
