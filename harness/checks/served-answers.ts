import type { LedgerRow } from '../../simulator/index.js';
import { streamCompleted, type ClientOutcome } from '../load/client-outcome.js';
import type { RunScenario } from '../scenario/schema.js';
import { attemptsByRequest } from './attempts-by-request.js';

/** A 2xx answer the client accepted as complete, with the attempts its correlation id names. */
export interface ServedAnswer {
  outcome: ClientOutcome;
  attempts: LedgerRow[];
  /** Attempts that succeeded upstream and ran to completion. */
  succeeded: LedgerRow[];
}

/** Whether a client took an answer as served: a 2xx body, or a 2xx stream that ended as clients accept. */
export function acceptedAsServed(o: ClientOutcome): boolean {
  return o.status >= 200 && o.status < 300 && (!o.stream || streamCompleted(o));
}

/** An attempt that succeeded upstream and whose answer ran to its end. */
export const succeededUpstream = (r: LedgerRow) => r.status >= 200 && r.status < 300 && r.end === 'complete';

/**
 * The answers clients accepted, each with its attempts; `traceable` is false when no chat attempt
 * of the run carried a correlation id (a router that strips both the header and the prompt
 * marker cannot be followed, and is not judged as if it sent nothing). The answers are found as
 * they are read, not kept: a day's run has a million, and three checks read them once each.
 */
export function servedAnswers(outcomes: readonly ClientOutcome[], rows: readonly LedgerRow[]): ServedAnswers {
  // Three checks ask for the same run's figures: counted once per outcomes and rows (read them, never change them).
  const known = servedOf.get(outcomes);
  if (known?.rows === rows) return known.served;
  const served = findServedAnswers(outcomes, rows);
  servedOf.set(outcomes, { rows, served });
  return served;
}

/** The answers clients accepted: how many, and each in turn (with its attempts) when iterated. */
export interface ServedAnswerList extends Iterable<ServedAnswer> {
  readonly length: number;
}

interface ServedAnswers {
  answers: ServedAnswerList;
  traceable: boolean;
}

/** Lets go of the answers `servedAnswers` found for `outcomes`, once the checks are done. */
export function forgetServedAnswers(outcomes: readonly ClientOutcome[]): void {
  servedOf.delete(outcomes);
}

const servedOf = new WeakMap<readonly ClientOutcome[], { rows: readonly LedgerRow[]; served: ServedAnswers }>();

function findServedAnswers(outcomes: readonly ClientOutcome[], rows: readonly LedgerRow[]): ServedAnswers {
  const byRequest = attemptsByRequest(rows);
  let chatRows = 0;
  for (const r of rows) if (r.endpoint === 'chat') chatRows++;
  let length = 0;
  for (const o of outcomes) if (acceptedAsServed(o)) length++;
  const answers: ServedAnswerList = {
    length,
    *[Symbol.iterator]() {
      for (const o of outcomes) {
        if (!acceptedAsServed(o)) continue;
        const attempts = byRequest.get(o.id) ?? [];
        // Usually every attempt succeeded (one attempt, served): then the same array, not a copy of it.
        const succeeded = attempts.every(succeededUpstream) ? attempts : attempts.filter(succeededUpstream);
        yield { outcome: o, attempts, succeeded };
      }
    },
  };
  return { answers, traceable: byRequest.size > 0 || chatRows === 0 };
}

/** What may answer a model name: null means anything in the scenario; a list of `provider/model` or `provider`. */
export type ModelRule = { any: true } | { any: false; targets: string[] } | { any: false; unknown: true };

/**
 * The providers and models that may answer a client's model name: `auto` anything; a declared
 * alias (`expect.aliases`, or the reference router's `config.aliases`) its targets; `provider/model`
 * that pair; a model name some provider serves, those providers; else unknown (not judged).
 */
export function modelRules(scenario: RunScenario): (model: string) => ModelRule {
  const aliases: Record<string, string[]> = { ...scenario.expect.aliases };
  if (scenario.router.kind === 'reference') {
    const configured = (scenario.router.config as { aliases?: unknown }).aliases;
    if (configured && typeof configured === 'object')
      for (const [name, list] of Object.entries(configured))
        if (Array.isArray(list)) aliases[name] ??= list.filter((t): t is string => typeof t === 'string');
  }
  const providers = new Map(scenario.providers.map((p) => [p.id, p.models]));
  const autoName =
    scenario.router.kind === 'reference'
      ? String((scenario.router.config as { autoModel?: unknown }).autoModel ?? 'auto')
      : 'auto';
  return (model) => {
    if (model === autoName || model === 'auto') return { any: true };
    const alias = aliases[model];
    if (alias) return { any: false, targets: alias };
    const slash = model.indexOf('/');
    if (slash > 0 && providers.get(model.slice(0, slash))?.includes(model.slice(slash + 1)))
      return { any: false, targets: [model] };
    const serving = [...providers].filter(([, models]) => models.includes(model)).map(([id]) => `${id}/${model}`);
    if (serving.length > 0) return { any: false, targets: serving };
    return { any: false, unknown: true };
  };
}

/** Whether an attempt is one the rule allows. */
export function allowedBy(rule: ModelRule, r: LedgerRow): boolean {
  if (rule.any) return true;
  if ('unknown' in rule) return true;
  return rule.targets.some((t) => t === r.provider || t === `${r.provider}/${r.model ?? ''}`);
}
