import { describe, expect, it } from 'vitest';
import { input, limited, row, T0 } from '../../test/helpers/evidence.js';
import { checkSingleProbe } from './single-probe.js';

describe('checkSingleProbe', () => {
  it('passes when one probe goes first and the rest follow its answer', () => {
    const rows = [limited(0, 1000), row({ at: 1000, firstByteAt: T0 + 1050 }), row({ at: 1060 }), row({ at: 1061 })];
    expect(checkSingleProbe(input({ rows }))).toMatchObject({
      verdict: 'pass',
      value: 1,
      figure: 'largest herd 1 over 1 quiet wait end',
    });
  });

  it('fails when the queue is released at once when the wait ends', () => {
    const rows = [limited(0, 1000), row({ at: 1000, firstByteAt: T0 + 1050 }), row({ at: 1001 }), row({ at: 1002 })];
    const r = checkSingleProbe(input({ rows }));
    expect(r).toMatchObject({ verdict: 'fail', value: 3, violations: 1 });
    expect(r.evidence[0]!.detail).toMatch(
      /^3 attempts arrived when the 1000 ms wait of attempt #\d+ ended, before any of them was answered$/,
    );
  });

  it('judges overlapping waits once, at the end of the last', () => {
    const rows = [limited(0, 1000), limited(5, 1495), row({ at: 1500, firstByteAt: T0 + 1550 }), row({ at: 1560 })];
    expect(checkSingleProbe(input({ rows }))).toMatchObject({
      verdict: 'pass',
      figure: 'largest herd 1 over 1 quiet wait end',
    });
  });

  it('has nothing to judge when no traffic follows a wait', () => {
    const r = checkSingleProbe(input({ rows: [limited(0, 1000)] }));
    expect(r).toMatchObject({ verdict: 'skip', figure: 'no wait ended with traffic after it' });
  });

  it('skips wait ends the router never paused for: its "herd" is just the ambient traffic', () => {
    const rows = [
      limited(0, 1000),
      row({ at: 400, status: 429, hintMs: 600, hintForm: 'seconds', firstByteAt: T0 + 400 }),
      row({ at: 1000, firstByteAt: T0 + 1050 }),
      row({ at: 1001 }),
    ];
    const r = checkSingleProbe(input({ rows }));
    expect(r).toMatchObject({ verdict: 'skip', reason: 'router did not pause; see retry-after' });
  });
});
