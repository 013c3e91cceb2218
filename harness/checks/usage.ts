import { servedAnswers } from './served-answers.js';
import { allOf, count, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';

/**
 * Every served answer carries usage when the client asked for it (a stream with
 * `stream_options.include_usage`, which the load sends on every stream; a plain chat completion
 * always carries it), and the usage equals what the provider metered for the attempt that
 * produced the answer: its prompt tokens as the vendor counts them (a real tokenizer for the
 * OpenAI family; see docs/vendor-facts.md) and the completion tokens it generated. An estimate
 * made from the characters a router sent does not match.
 */
export function checkUsage({ outcomes, rows, scenario }: CheckInput): CheckResult {
  const base = {
    id: 'usage' as const,
    title: 'Usage is reported and metered exactly',
    meaning:
      'Every answer that should carry usage does, and it equals the tokens the provider metered for the attempt that answered.',
    unit: 'answers',
  };
  if (scenario.expect.usage.source === 'none')
    return {
      ...base,
      verdict: 'skip',
      figure: 'not checked (expect.usage.source: none)',
      value: null,
      violations: 0,
      evidence: [],
    };
  const { answers } = servedAnswers(outcomes, rows);
  const evidence: Evidence[] = [];
  let compared = 0;
  let missing = 0;
  let wrong = 0;
  for (const { outcome: o, succeeded } of answers) {
    const metered = succeeded.filter((r) => r.endpoint === 'chat');
    const last = metered[metered.length - 1];
    // An answer no provider produced is answer-integrity's to judge; there is no count to compare.
    if (!last) continue;
    compared++;
    let detail: string | undefined;
    if (o.usage === null) {
      missing++;
      detail = o.stream
        ? `stream asked for usage (stream_options.include_usage) and got none; ${last.provider} metered ${last.tokensIn}+${last.tokensOut}`
        : `answer carried no usage; ${last.provider} metered ${last.tokensIn}+${last.tokensOut}`;
    } else if (!metered.some((r) => r.tokensIn === o.usage!.prompt && r.tokensOut === o.usage!.completion)) {
      wrong++;
      detail = `router reported ${o.usage.prompt}+${o.usage.completion} tokens; the provider metered ${last.tokensIn}+${last.tokensOut}`;
    }
    if (detail !== undefined && evidence.length < MAX_EVIDENCE)
      evidence.push({ at: o.endAt, correlationId: o.id, provider: last.provider, model: last.model, detail });
  }
  const violations = missing + wrong;
  return {
    ...base,
    verdict: compared === 0 ? 'skip' : violations === 0 ? 'pass' : 'fail',
    figure:
      compared === 0
        ? 'no served answer could be traced to a provider that metered it'
        : violations === 0
          ? `usage present and exact on ${allOf(compared, 'answer')}`
          : `${violations} of ${count(compared, 'answer')} wrong: ${missing} without usage, ${count(wrong, 'mismatch', 'mismatches')}`,
    value: violations,
    violations,
    evidence,
    details: { compared, missing, mismatched: wrong },
  };
}
