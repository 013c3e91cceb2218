import { attemptsByRequest } from './attempts-by-request.js';
import { plannedRequests } from './planned-requests.js';
import type { Intervals } from './intervals.js';
import { modelRules } from './served-answers.js';
import { spareCapacity } from './spare-capacity.js';
import { starvationDuring, starvationMeasured, starvationWords, type Starvation } from './starvation.js';
import type { ClientOutcome } from '../load/client-outcome.js';
import { count, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';

/** An answer that says the request could not be served now: a 429, or a 5xx (the router's own or relayed). */
const isCapacityError = (status: number) => status === 429 || (status >= 500 && status <= 599);

/** A stretch of spare capacity inside a request's life, and the starvation that ate into it. */
interface Window {
  provider: string;
  from: number;
  to: number;
  starved: Starvation;
}

/**
 * The open spans of `spans` clipped to [a, b) that are at least `minMs` long there (a sliver of a
 * few ms before a fault began was no time to serve anything in).
 */
function windowsWithin(spans: Intervals, a: number, b: number, minMs: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [s, e] of spans) {
    const from = Math.max(s, a);
    const to = Math.min(e, b);
    if (to > from && to - from >= minMs) out.push([from, to]);
  }
  return out;
}

/**
 * No request was answered with an error (a 429 or a 5xx, the router's own or a provider's passed
 * on) while a provider the request could go to (by its model: `auto` any, an alias its targets,
 * `provider/model` that one) had capacity no one used, at some instant between the request's
 * arrival and its deadline, for at least `noNeedlessError.serviceTime` (a probe, then the answer)
 * (see `spareCapacity`): a sliver of capacity shorter than that inside the request's life decides
 * nothing. Per request: one needless error fails. A request whose every allowed provider stayed
 * closed until too late for its deadline was rightly refused; an error of any other kind (a 4xx, a
 * broken stream) is not judged.
 *
 * As `deadline` and `retry-after` do, measured starvation is discounted: a window the router's
 * processes (or the harness's loop) spent so long off the CPU (see `starvationDuring`, counted
 * while the router still held the request) that less than `serviceTime` of it was left proves
 * nothing. So does starvation before the request came (`starvedBefore`): what the router did with
 * it was decided by what it held then (a queue full of requests a starved machine had slowed, a
 * breaker opened by attempts it made late, a retry budget spent on them), and a request it shed
 * at once was never held through any window at all; but not when a provider's error was behind
 * it (the router passed it on or gave up after it). A needless error so explained is
 * INCONCLUSIVE (timing), never a pass; on a calm machine every needless error fails.
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
  // Needless errors that the router's starvation (or the harness's) alone explains.
  let starvedOnly = 0;
  const planned = errors.length > 0 ? plannedRequests(input) : undefined;
  for (const o of errors) {
    // A request the load made invalid on its face no provider could serve: CE-1 judges its answer.
    if (planned?.(o.id)?.invalid) continue;
    const rule = rules(o.model);
    if ('unknown' in rule) continue;
    judged++;
    const providers = rule.any ? all : [...new Set(rule.targets.map((t) => t.split('/')[0]!))];
    const life: [number, number] = [o.sentAt, o.sentAt + o.deadlineMs];
    const windows: Window[] = providers.flatMap((p) =>
      windowsWithin(spare.get(p) ?? [], life[0], life[1], serviceTime).map(([from, to]) => ({
        provider: p,
        from,
        to,
        // Only while the router still held the request: stalls after it answered excuse nothing.
        starved: starvationDuring(input, from, Math.max(from, Math.min(to, o.endAt)), o.replica),
      })),
    );
    if (windows.length === 0) continue;
    // The router needed `serviceTime` of the window on a CPU: one it was held off the CPU for so
    // long that less was left proves nothing (measured starvation only, and never a pass).
    const usable = windows.find((w) => w.to - w.from - w.starved.ms >= serviceTime);
    const before = usable ? starvedBefore(input, o) : undefined;
    const shown = usable ?? windows[0]!;
    if (usable && !before) needless++;
    else starvedOnly++;
    if (evidence.length < MAX_EVIDENCE) evidence.push(evidenceOf(o, shown, life, !usable || !!before, before));
  }
  const verdict = judged === 0 ? 'skip' : needless > 0 ? 'fail' : starvedOnly > 0 ? 'inconclusive' : 'pass';
  return {
    id: 'no-needless-error',
    title: 'No needless error',
    meaning:
      'No request was answered with an error (429 or 5xx) while a provider it could go to had capacity before its deadline.',
    verdict,
    ...(judged === 0
      ? {
          reason:
            errors.length === 0
              ? 'no request was answered with a 429 or a 5xx'
              : `the ${count(errors.length, 'error')} answered named models no rule says who may serve (declare them in expect.aliases)`,
        }
      : verdict === 'inconclusive'
        ? {
            reason: `timing: machine overloaded: for each of the ${count(starvedOnly, 'error')} answered while capacity existed, the router (or the harness's loop) was starved for so much of that capacity's window that less than ${serviceTime} ms of it was left, or (an error of its own, no provider's behind it) for half the request's deadline or more in the deadline before it came`,
          }
        : {}),
    figure:
      judged === 0
        ? errors.length === 0
          ? 'no request was answered with an error'
          : `${count(errors.length, 'error')}, none judged`
        : `${needless} of ${count(judged, 'error')} answered while capacity existed (deadline less ${serviceTime} ms)${starvedOnly > 0 ? `, ${starvedOnly} more explained by starvation` : ''}`,
    value: needless,
    unit: 'requests',
    threshold: '0',
    violations: needless,
    evidence,
    details: { errors: errors.length, judged, needless, starvedOnly },
  };
}

/**
 * The starvation in the deadline before a request came, when it is half that deadline or more:
 * every request the router still held when this one came arrived in that span, so a machine
 * starved for that long shaped what the router did with it. The bar is high (`goodput` excuses a
 * request starved a tenth of its own deadline) because this only infers the cause: at load 10 a
 * router that sheds every request with no attempt already sees a tenth, and must still fail.
 * Undefined below the bar, or where starvation was not measured.
 */
function starvedBefore(input: CheckInput & { startedAt: number }, o: ClientOutcome): Starvation | undefined {
  if (!starvationMeasured(input)) return undefined;
  // A provider's error the router acted on (passed on, or gave up after) was its own policy at
  // work, whatever the machine: only an error of its own with no provider's behind it (a shed,
  // an open breaker, a budget spent) can be the starved machine's.
  if (
    attemptsByRequest(input.rows)
      .get(o.id)
      ?.some((r) => isCapacityError(r.status))
  )
    return undefined;
  const from = Math.max(input.startedAt, o.sentAt - o.deadlineMs);
  const s = starvationDuring(input, from, o.sentAt, o.replica);
  return s.ms >= o.deadlineMs / 2 ? s : undefined;
}

/** `answered 429 after 1543 ms, while openai had capacity when it came, for 300 ms (…)`. */
function evidenceOf(
  o: ClientOutcome,
  w: Window,
  life: [number, number],
  starvedOnly: boolean,
  before?: Starvation,
): Evidence {
  const since = (t: number) => (t === life[0] ? 'when it came' : `${Math.round(t - life[0])} ms after it came`);
  const until = w.to >= life[1] ? 'until its deadline' : `for ${Math.round(w.to - w.from)} ms`;
  const starved = `${w.starved.ms >= 1 ? `; ${starvationWords(w.starved)} in that window` : ''}${before ? `; ${starvationWords(before)} in the ${Math.round(o.deadlineMs)} ms before it came` : ''}`;
  return {
    at: o.endAt,
    correlationId: o.id,
    provider: w.provider,
    detail: `answered ${o.status}${o.error ? ` (${o.error})` : ''} after ${Math.round(o.endAt - o.sentAt)} ms, while ${w.provider} had capacity ${since(w.from)}, ${until} (its deadline: ${o.deadlineMs} ms)${starved}${starvedOnly ? ' (explained by starvation: inconclusive)' : ''}`,
  };
}
