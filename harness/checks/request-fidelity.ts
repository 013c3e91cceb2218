import type { RequestFacts, RequestShape } from '../../simulator/index.js';
import { joinRequestFacts } from './request-facts-join.js';
import { count, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';

/**
 * What a vendor's API has no equivalent for, so a router may drop it (docs/spec.md REQ-1): the
 * Responses API takes no `stop` or `seed`; Anthropic Messages and Bedrock Converse take no seed;
 * Gemini's `functionResponse` carries no call id (its results are matched by count).
 */
const NO_EQUIVALENT: Record<RequestShape, ReadonlySet<'st' | 'sd' | 'tr'>> = {
  'openai-chat': new Set(),
  'openai-responses': new Set(['st', 'sd']),
  anthropic: new Set(['sd']),
  bedrock: new Set(['sd']),
  gemini: new Set(['tr']),
};

/**
 * What every inbound API (chat completions, Responses, Messages) does when a sampling parameter is
 * left out, so a router that drops a client's value equal to it changes nothing. temperature 1:
 * "Defaults to 1" in OpenAI's API reference (chat completions, Responses) and "Defaults to 1.0"
 * in Anthropic's Messages reference. top_p 1: OpenAI's reference says "Defaults to 1"; Anthropic's
 * states no default (unconfirmed there), but nucleus sampling over the whole probability mass
 * keeps every token, so 1 is no truncation on any vendor.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 * @see https://docs.anthropic.com/en/api/messages
 */
const API_DEFAULTS = { t: 1, tp: 1 } as const;

/** The client's value was kept, or dropped where leaving it out means the same. */
const kept = (client: number, sent: number | undefined, byDefault: number) =>
  sent === client || (sent === undefined && client === byDefault);

const show = (v: unknown) => (v === undefined ? 'none' : JSON.stringify(v));
const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined) =>
  (a ?? []).length === (b ?? []).length && (a ?? []).every((x, i) => x === b![i]);

/** How an attempt departs from its client's request, one phrase a parameter; empty when faithful. */
export function unfaithful(client: RequestFacts, sent: RequestFacts, shape: RequestShape): string[] {
  const out: string[] = [];
  const none = NO_EQUIVALENT[shape];
  // A router may add a parameter the client left out (Anthropic requires max_tokens), never change one.
  if (client.mt !== undefined && sent.mt !== client.mt) out.push(`max tokens ${client.mt} sent as ${show(sent.mt)}`);
  if (client.t !== undefined && !kept(client.t, sent.t, API_DEFAULTS.t))
    out.push(`temperature ${client.t} sent as ${show(sent.t)}`);
  if (client.tp !== undefined && !kept(client.tp, sent.tp, API_DEFAULTS.tp))
    out.push(`top_p ${client.tp} sent as ${show(sent.tp)}`);
  if (client.st && !none.has('st') && !sameList(client.st, sent.st))
    out.push(`stop ${show(client.st)} sent as ${show(sent.st)}`);
  if (client.sd !== undefined && !none.has('sd') && sent.sd !== client.sd)
    out.push(`seed ${client.sd} sent as ${show(sent.sd)}`);
  const missing = (client.tools ?? []).filter((t) => !sent.tools?.includes(t));
  if (missing.length) out.push(`tools ${show(missing)} not offered`);
  if (client.tr) {
    if (none.has('tr')) {
      if ((sent.trn ?? 0) !== client.tr.length) out.push(`${client.tr.length} tool results sent as ${sent.trn ?? 0}`);
    } else if (!sameList(client.tr, sent.tr)) out.push(`tool results for ${show(client.tr)} sent for ${show(sent.tr)}`);
  }
  return out;
}

/**
 * REQ-1: each attempt carries what its client asked for, in the vendor's words: max tokens,
 * temperature, top_p, stop sequences, seed, the tools offered and the tool results with the ids
 * of the calls they answer. Only what the vendor's API has no equivalent for may be dropped
 * (`NO_EQUIVALENT`); a parameter the client left out may be added. The model is answer-integrity's
 * and cache hints are cache-use's. Judged on requests whose client facts the load recorded.
 */
export function checkRequestFidelity({ outcomes, rows }: CheckInput): CheckResult {
  const base = {
    id: 'request-fidelity' as const,
    title: 'Requests are passed on faithfully',
    meaning:
      'Every attempt carried the parameters, stop sequences, tools and tool results its client sent, translated into the vendor’s API; only what the vendor has no equivalent for was dropped.',
    unit: 'attempts',
  };
  const joined = joinRequestFacts(outcomes, rows);
  if (joined.length === 0)
    return {
      ...base,
      verdict: 'skip',
      reason: outcomes.some((o) => o.request !== undefined)
        ? 'no attempt of a request whose parameters the load recorded reached a provider'
        : 'the load recorded no request parameters (load.requests.surface draws them)',
      figure: 'nothing to compare',
      value: null,
      violations: 0,
      evidence: [],
    };
  const evidence: Evidence[] = [];
  const byKind = new Map<string, number>();
  let violations = 0;
  for (const j of joined) {
    const wrong = unfaithful(j.client, j.sent, j.shape);
    if (wrong.length === 0) continue;
    violations++;
    for (const w of wrong) {
      const kind = w.split(' ').slice(0, 2).join(' ');
      byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
    }
    if (evidence.length < MAX_EVIDENCE)
      evidence.push({
        at: j.row.arrivalAt,
        correlationId: j.row.correlationId,
        provider: j.row.provider,
        key: j.row.key,
        model: j.row.model,
        detail: `${j.row.provider} (${j.shape}): ${wrong.join('; ')}`,
      });
  }
  return {
    ...base,
    verdict: violations === 0 ? 'pass' : 'fail',
    figure:
      violations === 0
        ? `${count(joined.length, 'attempt')} carried what their clients asked for`
        : `${violations} of ${count(joined.length, 'attempt')} departed from their client's request`,
    value: violations,
    violations,
    evidence,
    details: { judged: joined.length, ...Object.fromEntries(byKind) },
  };
}
