import { count, MAX_EVIDENCE, type CheckInput, type CheckResult } from './types.js';

/** No provider ever received another provider's credential (the ledger names whose it was, never the key). */
export function checkKeyIsolation({ rows }: CheckInput): CheckResult {
  const foreign = rows.filter((r) => r.key.startsWith('foreign:'));
  const unknown = rows.filter((r) => r.key === 'unknown' || r.key === 'none').length;
  return {
    id: 'key-isolation',
    title: 'Keys stay with their provider',
    meaning: "No provider was sent another provider's API key.",
    verdict: foreign.length === 0 ? 'pass' : 'fail',
    figure:
      foreign.length === 0
        ? `no foreign keys in ${count(rows.length, 'attempt')}`
        : `${count(foreign.length, 'attempt')} carried another provider's key`,
    value: foreign.length,
    unit: 'attempts',
    violations: foreign.length,
    evidence: foreign.slice(0, MAX_EVIDENCE).map((r) => ({
      at: r.arrivalAt,
      correlationId: r.correlationId,
      provider: r.provider,
      key: r.key,
      detail: `${r.provider} received the key of ${r.key.slice('foreign:'.length)}`,
    })),
    details: { unknownOrMissingKeys: unknown },
  };
}
