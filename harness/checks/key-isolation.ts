import { count, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';

/**
 * No provider was sent a credential that is not its own, wherever in the request it travelled:
 * the credential that authenticated (the ledger's `key`) and every other header, query parameter
 * and the body (the ledger's `carried`: another provider's key, or a key of another organisation
 * of the same provider). The ledger names whose key it was, never the key.
 */
export function checkKeyIsolation({ rows }: CheckInput): CheckResult {
  const base = {
    id: 'key-isolation' as const,
    title: 'Keys stay with their provider',
    meaning:
      "No provider was sent another provider's (or another organisation's) API key, in its credential header or anywhere else in the request.",
    unit: 'attempts',
  };
  if (rows.length === 0)
    return {
      ...base,
      verdict: 'skip',
      figure: 'no attempt reached a provider',
      value: null,
      violations: 0,
      evidence: [],
    };
  const evidence: Evidence[] = [];
  let foreign = 0;
  let elsewhere = 0;
  for (const r of rows) {
    const wrongCredential = r.key.startsWith('foreign:');
    if (!wrongCredential && r.carried.length === 0) continue;
    if (wrongCredential) foreign++;
    else elsewhere++;
    if (evidence.length >= MAX_EVIDENCE) continue;
    const parts: string[] = [];
    if (wrongCredential) parts.push(`its credential was the key of ${r.key.slice('foreign:'.length)}`);
    for (const c of r.carried) {
      const [where, owner = ''] = c.split('=');
      parts.push(
        owner.startsWith('foreign:')
          ? `${where} carried the key of ${owner.slice('foreign:'.length)}`
          : `${where} carried a key of another organisation (${owner.slice('org:'.length)})`,
      );
    }
    evidence.push({
      at: r.arrivalAt,
      correlationId: r.correlationId,
      provider: r.provider,
      key: r.key,
      detail: `${r.provider}: ${parts.join('; ')}`,
    });
  }
  const violations = foreign + elsewhere;
  const unknown = rows.filter((r) => r.key === 'unknown' || r.key === 'none').length;
  return {
    ...base,
    verdict: violations === 0 ? 'pass' : 'fail',
    figure:
      violations === 0
        ? `no foreign keys in ${count(rows.length, 'attempt')} (credentials, headers, query parameters and bodies)`
        : `${count(violations, 'attempt')} carried a key not its provider's: ${foreign} as the credential, ${elsewhere} elsewhere in the request`,
    value: violations,
    violations,
    evidence,
    details: { unknownOrMissingKeys: unknown, foreignCredential: foreign, carriedElsewhere: elsewhere },
  };
}
