import type { Caller, QuotaRule } from './quota-rule.js';

/** A rule that applies to one request, and which of its buckets: scope id and model part. */
export interface ApplicableRule {
  rule: QuotaRule;
  /** The rule's position in the provider's list: part of every bucket's name. */
  index: number;
  /** The key id, the org, or `*` for the whole provider. */
  scopeId: string;
  /** The model, or `*` when the rule shares one bucket across models. */
  modelPart: string;
}

/** The rules that apply to `caller` and `model`, in order, each naming its bucket. */
export function applicableRules(rules: readonly QuotaRule[], caller: Caller, model: string): ApplicableRule[] {
  const out: ApplicableRule[] = [];
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i]!;
    if (rule.model !== undefined && rule.model !== model) continue;
    const scopeId = rule.scope === 'key' ? caller.keyId : rule.scope === 'org' ? caller.org : '*';
    out.push({ rule, index: i, scopeId, modelPart: rule.sharedModels ? '*' : model });
  }
  return out;
}
