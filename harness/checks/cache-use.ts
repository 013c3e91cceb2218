import { cachePolicyFor, type VendorId } from '../../simulator/index.js';
import { joinRequestFacts, type JoinedAttempt } from './request-facts-join.js';
import { count, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';

/** A miss is a fault past this share of the reads the hints allowed (and at least `MIN_MISSES` of them). */
const MAX_MISSED_SHARE = 0.2;
const MIN_MISSES = 3;
/** A prefix counts when its estimated tokens clear the cache's minimum by this margin (estimates are rough). */
const PREFIX_MARGIN = 1.25;

/** Where a hint the client gave must arrive: `cache_control` at Anthropic, `prompt_cache_key` at OpenAI. */
function hintsLost(j: JoinedAttempt): string | undefined {
  const { client, sent, row } = j;
  if (client.cc && j.shape === 'anthropic' && !sent.cc) return `its ${count(client.cc, 'cache_control hint')} stripped`;
  const openai = row.vendor === 'openai' || row.vendor === 'azure-openai';
  if (client.pck !== undefined && openai && sent.pck !== client.pck)
    return `prompt_cache_key ${JSON.stringify(client.pck)} sent as ${sent.pck === undefined ? 'none' : JSON.stringify(sent.pck)}`;
  return undefined;
}

interface Warm {
  usedAt: number;
}

/**
 * COST-2: a router carries the client's cache hints to the vendor that reads them (MUST), and keeps
 * requests that share a hinted prefix on the key whose prompt cache holds it (SHOULD). An answered
 * attempt of a hinted prefix long enough to cache, on a provider where that prefix was cached
 * within the cache's TTL (on any key), could have read it: it misses when it went to a key that did
 * not hold the prefix (the provider's cached-token figures are reported beside). A miss is excused
 * when every key holding the prefix failed an attempt since (rate-limited or down, so the router
 * had to move). Fails on a lost hint, or when more than a fifth of the reads the hints allowed
 * were missed (and at least three).
 */
export function checkCacheUse({ outcomes, rows, scenario }: CheckInput): CheckResult {
  const base = {
    id: 'cache-use' as const,
    title: 'Cache hints are kept, and so is the cache',
    meaning:
      'Every cache hint reached the vendor that reads it, and requests sharing a cached prefix went to the key whose cache held it: the provider reported cached input tokens where the hints allowed them.',
    unit: 'attempts',
  };
  const skip = (reason: string): CheckResult => ({
    ...base,
    verdict: 'skip',
    reason,
    figure: 'nothing to judge',
    value: null,
    violations: 0,
    evidence: [],
  });
  const hinted = joinRequestFacts(outcomes, rows).filter((j) => j.client.cc || j.client.pck !== undefined);
  if (hinted.length === 0)
    return skip('no request the load recorded carried a cache hint (load.requests.surface.cacheHints)');
  const options = new Map(scenario.providers.map((p) => [p.id, p.options]));
  const evidence: Evidence[] = [];
  const note = (j: JoinedAttempt, detail: string) => {
    if (evidence.length < MAX_EVIDENCE)
      evidence.push({
        at: j.row.arrivalAt,
        correlationId: j.row.correlationId,
        provider: j.row.provider,
        key: j.row.key,
        model: j.row.model,
        detail,
      });
  };
  let lost = 0;
  for (const j of hinted) {
    const why = hintsLost(j);
    if (why === undefined) continue;
    lost++;
    note(j, `${j.row.provider}: ${why}`);
  }
  // Each key's latest failure, to excuse a move off a key that could not serve.
  const failedAt = new Map<string, number>();
  for (const r of rows) if (r.status === 429 || r.status >= 500) failedAt.set(`${r.provider}/${r.key}`, r.arrivalAt);
  const warm = new Map<string, Map<string, Warm>>();
  let allowed = 0;
  let missed = 0;
  let allowedTokens = 0;
  let readTokens = 0;
  for (const j of hinted) {
    const { row, client } = j;
    if (row.status !== 200 || !client.px || row.model === null) continue;
    const policy = cachePolicyFor(row.vendor as VendorId, row.model, options.get(row.provider) ?? {});
    if (!policy || (client.pt ?? 0) < policy.minTokens * PREFIX_MARGIN) continue;
    // An explicit cache (Anthropic) reads and writes only at a breakpoint the attempt carried.
    if (policy.mode === 'explicit' && !j.sent.cc) continue;
    // Tools open the prompt (Anthropic caches tools, system, messages in that order): a prefix is its tools too.
    const group = `${row.provider}\u0000${row.model}\u0000${client.px}\u0000${j.sent.tools?.join(',') ?? ''}`;
    let keys = warm.get(group);
    if (!keys) warm.set(group, (keys = new Map()));
    const live = [...keys].filter(([, w]) => row.arrivalAt - w.usedAt < policy.ttlMs);
    if (live.length > 0) {
      const excused = live.every(([key, w]) => (failedAt.get(`${row.provider}/${key}`) ?? -Infinity) > w.usedAt);
      if (!excused) {
        allowed++;
        allowedTokens += Math.min(client.pt ?? 0, row.tokensIn);
        readTokens += row.cacheRead ?? 0;
        // Moved off every key that held the prefix: the router's choice, not the cache's.
        if (!live.some(([k]) => k === row.key)) {
          missed++;
          const where = live.map(([k]) => k).join(', ');
          note(
            j,
            `${row.provider}: sent to key ${row.key} (${row.cacheRead ?? 0} cached input tokens) while its prefix was cached on ${where}`,
          );
        }
      }
    }
    keys.set(row.key, { usedAt: row.arrivalAt });
  }
  const missedShare = allowed > 0 ? missed / allowed : 0;
  const sprayed = missed >= MIN_MISSES && missedShare > MAX_MISSED_SHARE;
  if (lost === 0 && allowed === 0)
    return skip('no hinted prefix was long enough to cache and sent again within the cache’s lifetime');
  const violations = lost + (sprayed ? missed : 0);
  const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
  return {
    ...base,
    verdict: violations === 0 ? 'pass' : 'fail',
    figure:
      `${count(lost, 'attempt')} lost a hint of ${hinted.length}; ` +
      `${missed} of ${count(allowed, 'cacheable attempt')} sent away from the key holding their prefix (${pct(missedShare)}, at most ${pct(MAX_MISSED_SHARE)}); ` +
      `${readTokens} cached input tokens of about ${allowedTokens} the hints allowed`,
    value: violations,
    violations,
    evidence,
    details: { hinted: hinted.length, lostHints: lost, cacheable: allowed, missed, readTokens, allowedTokens },
  };
}
