import { readFileSync } from 'node:fs';
import type { CheckResult } from '../../harness/index.js';
import { readExpectations, type RegressionExpectation } from '../../harness/explore/regression-expectations.js';
import { judgeFile } from '../spec/judge-pack.js';
import { REGRESSION_ROUTERS } from './routers.js';

/** One expectation of a saved regression, replayed: the verdict its router now gets on the check. */
export interface Replayed {
  expectation: RegressionExpectation;
  check: CheckResult | undefined;
}

/** The expectations a saved regression's header records. */
export function expectationsOf(file: string): RegressionExpectation[] {
  return readExpectations(readFileSync(file, 'utf8'));
}

/** Replays a saved regression in simulated time at its own seed for the router `e` names. */
export async function replayRegression(file: string, e: RegressionExpectation): Promise<Replayed> {
  const launcher = REGRESSION_ROUTERS[e.router];
  if (!launcher) throw new Error(`Failed to replay ${file}: no router "${e.router}" in test/regressions/routers.ts.`);
  const checks = await judgeFile(file, launcher);
  return { expectation: e, check: checks.find((c) => c.id === e.checkId) };
}
