import { createRequestPlanner, type PlannedRequest } from '../load/request-plan.js';
import type { CheckInput } from './types.js';

/** What the client asked of one request, as the load planned it. */
export type PlannedFacts = Pick<PlannedRequest, 'conversation' | 'invalid'>;

/**
 * The load's plan for each client request, by correlation id (`<runId>-<n>`): the weather the
 * scenario sent, whatever the router did with it. Undefined when the run's seed or load is
 * unknown, or when the plan holds nothing the checks read (no conversations, no invalid requests),
 * so that a plain run plans nothing twice.
 */
export function plannedRequests(
  input: Pick<CheckInput, 'scenario' | 'seed'>,
): ((id: string) => PlannedFacts | undefined) | undefined {
  const load = input.scenario.load;
  if (!load || input.seed === undefined) return undefined;
  if (!load.requests.conversations && !load.requests.invalid) return undefined;
  const planners = new Map<string, (n: number) => PlannedRequest>();
  const seed = input.seed;
  return (id) => {
    const dash = id.lastIndexOf('-');
    const n = Number(id.slice(dash + 1));
    if (dash < 1 || !Number.isInteger(n) || n < 0) return undefined;
    const runId = id.slice(0, dash);
    let plan = planners.get(runId);
    if (!plan) planners.set(runId, (plan = createRequestPlanner(load, seed, runId)));
    const p = plan(n);
    return p.id === id ? { conversation: p.conversation, invalid: p.invalid } : undefined;
  };
}
