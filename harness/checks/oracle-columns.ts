import type { AttemptGroups } from './attempts-by-request.js';
import type { OracleColumns, OracleRequest } from './quota-oracle.js';
import type { CheckInput } from './types.js';
import type { PlannedFacts } from './planned-requests.js';

/**
 * The eligible requests as the quota oracle reads them, in send order: each with the prompt tokens
 * of its first attempt (else the run's median), its deadline less `serviceTime`, the provider
 * models that could serve its model (one shared list per model) and, from the load's plan, the
 * conversation whose cacheable prefix it opens with.
 */
export function oracleColumns(
  input: Pick<CheckInput, 'outcomes' | 'rows' | 'scenario'>,
  eligible: readonly number[],
  attempts: AttemptGroups,
  serviceTime: number,
  /** The provider models that could serve a model (goodput's `candidateTargets`). */
  targetsOf: (model: string) => OracleRequest['targets'],
  /** The load's plan of each request (`plannedRequests`): the conversation whose prefix it shares. */
  planned?: (id: string) => PlannedFacts | undefined,
): OracleColumns {
  const { outcomes, rows, scenario } = input;
  let chatWithTokens = 0;
  for (const r of rows) if (r.endpoint === 'chat' && r.tokensIn > 0) chatWithTokens++;
  const seen = new Float64Array(chatWithTokens);
  let k = 0;
  for (const r of rows) if (r.endpoint === 'chat' && r.tokensIn > 0) seen[k++] = r.tokensIn;
  seen.sort();
  const typicalTokensIn = seen.length ? seen[Math.floor(seen.length / 2)]! : 0;
  const n = eligible.length;
  const sentAt = new Float64Array(n);
  for (let j = 0; j < n; j++) sentAt[j] = outcomes[eligible[j]!]!.sentAt;
  // Positions in `eligible` by send time; the sort is stable, as sorting the outcomes themselves was.
  const order = Array.from({ length: n }, (_, j) => j).sort((a, b) => sentAt[a]! - sentAt[b]!);
  const columns: OracleColumns = {
    length: n,
    sentAt: new Float64Array(n),
    latestAt: new Float64Array(n),
    tokensIn: new Float64Array(n),
    maxTokens: new Float64Array(n).fill(scenario.load?.requests.maxTokens ?? 0),
    targets: new Uint32Array(n),
    targetLists: [],
  };
  const conversations = scenario.load?.requests.conversations;
  const conversation = planned && conversations ? new Int32Array(n).fill(-1) : undefined;
  const listOf = new Map<string, number>();
  const lists: Array<OracleRequest['targets']> = [];
  for (let j = 0; j < n; j++) {
    const o = outcomes[eligible[order[j]!]!]!;
    columns.sentAt[j] = o.sentAt;
    columns.latestAt[j] = o.sentAt + Math.max(0, o.deadlineMs - serviceTime);
    columns.tokensIn[j] = attempts.first(o.id)?.tokensIn ?? typicalTokensIn;
    let list = listOf.get(o.model);
    if (list === undefined) {
      list = lists.push(targetsOf(o.model)) - 1;
      listOf.set(o.model, list);
    }
    columns.targets[j] = list;
    if (conversation) conversation[j] = planned!(o.id)?.conversation ?? -1;
  }
  return {
    ...columns,
    targetLists: lists,
    ...(conversation
      ? {
          conversation,
          prefix: { tokens: conversations!.systemTokens, cacheControl: conversations!.cacheControl },
        }
      : {}),
  };
}
