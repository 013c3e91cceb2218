import { CHECK_IDS, type CheckId } from '../scenario/schema.js';
import { checkAmplification } from './amplification.js';
import { checkAnswerIntegrity } from './answer-integrity.js';
import { checkContentIntegrity } from './content-integrity.js';
import { checkDeadline } from './deadline.js';
import { checkFailoverLatency } from './failover-latency.js';
import { checkGoodput } from './goodput.js';
import { checkKeyIsolation } from './key-isolation.js';
import { checkNo429 } from './no-429.js';
import { checkNoBlindRetry } from './no-blind-retry.js';
import { checkRetryAfter } from './retry-after.js';
import { checkSingleProbe } from './single-probe.js';
import { checkStreamIntegrity } from './stream-integrity.js';
import type { CheckInput, CheckResult } from './types.js';
import { checkUsage } from './usage.js';

/** Every check by id. */
export const CHECKS: Record<CheckId, (input: CheckInput & { startedAt: number }) => CheckResult> = {
  'no-429': checkNo429,
  'retry-after': checkRetryAfter,
  deadline: checkDeadline,
  'failover-latency': checkFailoverLatency,
  'single-probe': checkSingleProbe,
  'no-blind-retry': checkNoBlindRetry,
  amplification: checkAmplification,
  goodput: checkGoodput,
  'key-isolation': checkKeyIsolation,
  'stream-integrity': checkStreamIntegrity,
  'answer-integrity': checkAnswerIntegrity,
  'content-integrity': checkContentIntegrity,
  usage: checkUsage,
};

/** Runs the scenario's checks (all by default, minus `skip`), in report order. */
export function runChecks(input: CheckInput & { startedAt: number }): CheckResult[] {
  const wanted = new Set(input.scenario.expect.checks ?? CHECK_IDS);
  for (const id of input.scenario.expect.skip) wanted.delete(id);
  return CHECK_IDS.filter((id) => wanted.has(id)).map((id) => CHECKS[id](input));
}

/** A run passes when no check failed. */
export function overallVerdict(results: readonly CheckResult[]): 'pass' | 'fail' {
  return results.some((r) => r.verdict === 'fail') ? 'fail' : 'pass';
}
