import { allowedBy, modelRules, servedAnswers } from './served-answers.js';
import { allOf, count, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';

/**
 * Every answer a client accepted (a 2xx body, or a stream that ended as clients accept) is backed
 * by an attempt that succeeded upstream, for the model the client asked for or one its name may
 * mean (`auto`, an alias, a provider's own model). A canned, cached or invented answer has no
 * such attempt; a substituted one has attempts only for models the name does not allow.
 */
export function checkAnswerIntegrity({ outcomes, rows, scenario }: CheckInput): CheckResult {
  const base = {
    id: 'answer-integrity' as const,
    title: 'Answers come from the model asked for',
    meaning:
      'Every successful answer was produced by a provider for the model the client asked for (or an alias of it), never canned, cached or substituted.',
    unit: 'answers',
  };
  const { answers, traceable } = servedAnswers(outcomes, rows);
  if (answers.length === 0)
    return {
      ...base,
      verdict: 'skip',
      figure: 'no answers to judge: no request was served',
      value: null,
      violations: 0,
      evidence: [],
    };
  if (!traceable)
    return {
      ...base,
      verdict: 'skip',
      figure: `cannot follow ${count(answers.length, 'answer')}: no attempt carried a correlation id (header or [tl:…] prompt marker)`,
      value: null,
      violations: 0,
      evidence: [],
    };
  const ruleOf = modelRules(scenario);
  const evidence: Evidence[] = [];
  let unbacked = 0;
  let substituted = 0;
  const unknownModels = new Set<string>();
  for (const { outcome: o, attempts, succeeded } of answers) {
    const rule = ruleOf(o.model);
    if (!rule.any && 'unknown' in rule) unknownModels.add(o.model);
    let detail: string | undefined;
    if (succeeded.length === 0) {
      unbacked++;
      detail =
        attempts.length === 0
          ? `answered ${o.status} with no attempt at any provider (a canned or cached answer)`
          : `answered ${o.status}, but none of its ${count(attempts.length, 'attempt')} succeeded upstream (${attempts
              .slice(0, 4)
              .map((r) => `${r.provider} ${r.status}${r.end === 'complete' ? '' : ` ${r.end}`}`)
              .join(', ')})`;
    } else if (!succeeded.some((r) => allowedBy(rule, r))) {
      substituted++;
      const got = [...new Set(succeeded.map((r) => `${r.provider}/${r.model ?? '?'}`))].join(', ');
      const allowed = 'targets' in rule ? rule.targets.join(', ') : '';
      detail = `asked for ${o.model} (${allowed}); answered from ${got}`;
    }
    if (detail !== undefined && evidence.length < MAX_EVIDENCE) {
      const r = succeeded[0] ?? attempts[0];
      evidence.push({ at: o.endAt, correlationId: o.id, provider: r?.provider, model: r?.model ?? null, detail });
    }
  }
  const violations = unbacked + substituted;
  const note = unknownModels.size
    ? `; not judged for model: ${[...unknownModels].slice(0, 3).join(', ')} (declare it in expect.aliases)`
    : '';
  return {
    ...base,
    verdict: violations === 0 ? 'pass' : 'fail',
    figure:
      violations === 0
        ? `${allOf(answers.length, 'answer')} backed by a successful attempt for the model asked${note}`
        : `${violations} of ${count(answers.length, 'answer')} not backed: ${unbacked} without a successful attempt, ${substituted} from another model${note}`,
    value: violations,
    violations,
    evidence,
    details: { judged: answers.length, unbacked, substituted, unknownModels: [...unknownModels] },
  };
}
