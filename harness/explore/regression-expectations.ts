/** What replaying a saved regression must give: `router`'s verdict on `checkId`. */
export interface RegressionExpectation {
  router: string;
  verdict: 'PASS' | 'FAIL';
  checkId: string;
}

const LINE = /^# expect: (\S+) (PASS|FAIL) (\S+)\s*$/;

/** The header line that records one expectation (`# expect: <router> <PASS|FAIL> <check>`). */
export function formatExpectation(e: RegressionExpectation): string {
  return `# expect: ${e.router} ${e.verdict} ${e.checkId}`;
}

/** Every expectation a saved regression's header records, in order. */
export function readExpectations(text: string): RegressionExpectation[] {
  return text.split('\n').flatMap((line) => {
    const m = LINE.exec(line);
    return m ? [{ router: m[1]!, verdict: m[2] as 'PASS' | 'FAIL', checkId: m[3]! }] : [];
  });
}

/**
 * What a regression found for `router` must give from now on: the reference router must pass the
 * check (a failure of its own is a bug to fix, kept red until it is); any other router found failing
 * must still fail it, and the reference must pass the same world.
 */
export function expectationsFor(router: string, checkId: string): RegressionExpectation[] {
  const reference: RegressionExpectation = { router: 'reference', verdict: 'PASS', checkId };
  return router === 'reference' ? [reference] : [{ router, verdict: 'FAIL', checkId }, reference];
}
