import { plannedRequests } from './planned-requests.js';
import { overlaps, type Intervals } from './intervals.js';
import { modelRules } from './served-answers.js';
import { spareCapacity } from './spare-capacity.js';
import { count, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';

/** An answer that says the request could not be served now: a 429, or a 5xx (the router's own or relayed). */
const isCapacityError = (status: number) => status === 429 || (status >= 500 && status <= 599);

/** The first instant of [a, b) inside one of the spans, or undefined. */
function firstOpen(spans: Intervals, a: number, b: number): number | undefined {
  for (const [s, e] of spans) if (s < b && e > a) return Math.max(s, a);
  return undefined;
}

/**
 * No request was answered with an error (a 429 or a 5xx, the router's own or a provider's passed
 * on) while a provider the request could go to (by its model: `auto` any, an alias its targets,
 * `provider/model` that one) had capacity no one used, at some instant between the request's
 * arrival and its deadline less `noNeedlessError.serviceTime` (a probe, then the answer) (see `spareCapacity`). Per request: one
 * needless error fails. A request whose every allowed provider stayed closed until too late for its
 * deadline was rightly refused; an error of any other kind (a 4xx, a broken stream) is not judged.
 */
export function checkNoNeedlessError(input: CheckInput & { startedAt: number }): CheckResult {
  const { outcomes, scenario } = input;
  const serviceTime = scenario.expect.noNeedlessError.serviceTime;
  const errors = outcomes.filter((o) => isCapacityError(o.status));
  const rules = modelRules(scenario);
  const all = scenario.providers.map((p) => p.id);
  const spare = errors.length > 0 ? spareCapacity(input, input.startedAt) : new Map<string, Intervals>();
  const evidence: Evidence[] = [];
  let judged = 0;
  let needless = 0;
  const planned = errors.length > 0 ? plannedRequests(input) : undefined;
  for (const o of errors) {
    // A request the load made invalid on its face no provider could serve: CE-1 judges its answer.
    if (planned?.(o.id)?.invalid) continue;
    const rule = rules(o.model);
    if ('unknown' in rule) continue;
    judged++;
    const providers = rule.any ? all : [...new Set(rule.targets.map((t) => t.split('/')[0]!))];
    const latest = o.sentAt + Math.max(0, o.deadlineMs - serviceTime);
    const open = providers.find((p) => overlaps(spare.get(p) ?? [], o.sentAt, latest));
    if (open === undefined) continue;
    needless++;
    if (evidence.length < MAX_EVIDENCE) {
      const at = firstOpen(spare.get(open)!, o.sentAt, latest)!;
      evidence.push({
        at: o.endAt,
        correlationId: o.id,
        provider: open,
        detail: `answered ${o.status}${o.error ? ` (${o.error})` : ''} after ${Math.round(o.endAt - o.sentAt)} ms, while ${open} had capacity ${at === o.sentAt ? 'when it came' : `${Math.round(at - o.sentAt)} ms after it came`} (its deadline: ${o.deadlineMs} ms)`,
      });
    }
  }
  return {
    id: 'no-needless-error',
    title: 'No needless error',
    meaning:
      'No request was answered with an error (429 or 5xx) while a provider it could go to had capacity before its deadline.',
    verdict: judged === 0 ? 'skip' : needless > 0 ? 'fail' : 'pass',
    ...(judged === 0
      ? {
          reason:
            errors.length === 0
              ? 'no request was answered with a 429 or a 5xx'
              : `the ${count(errors.length, 'error')} answered named models no rule says who may serve (declare them in expect.aliases)`,
        }
      : {}),
    figure:
      judged === 0
        ? errors.length === 0
          ? 'no request was answered with an error'
          : `${count(errors.length, 'error')}, none judged`
        : `${needless} of ${count(judged, 'error')} answered while capacity existed (deadline less ${serviceTime} ms)`,
    value: needless,
    unit: 'requests',
    threshold: '0',
    violations: needless,
    evidence,
    details: { errors: errors.length, judged, needless },
  };
}
