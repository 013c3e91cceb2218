// Over 300 lines on purpose: the client-side checks share one evidence world; their cases read side by side.
import { describe, expect, it } from 'vitest';
import { input, limited, outcome, row, stalls, T0, world } from '../../test/helpers/evidence.js';
import { checkAmplification } from './amplification.js';
import { checkDeadline } from './deadline.js';
import { checkFailoverLatency } from './failover-latency.js';
import { checkKeyIsolation } from './key-isolation.js';
import { checkNo429 } from './no-429.js';
import { checkStreamIntegrity } from './stream-integrity.js';
import { checkUsage } from './usage.js';

describe('checkNo429', () => {
  it('fails on a 429 handed to a client and counts other errors alongside', () => {
    const r = checkNo429(
      input({
        outcomes: [
          outcome(),
          outcome({ id: 'b', status: 429, error: 'rate_limit_exceeded' }),
          outcome({ id: 'c', status: 503 }),
        ],
      }),
    );
    expect(r).toMatchObject({
      verdict: 'fail',
      figure: '1 of 3 client requests got 429 (providers answered 0 429s); 1 got other errors',
      details: { otherErrorsByStatus: { 503: 1 } },
    });
  });
  it('passes when providers answered 429 and no client saw one', () => {
    const rows = [
      limited(0, 1000, { correlationId: 'c1' }),
      row({ at: 5, provider: 'anthropic', correlationId: 'c1' }),
    ];
    const r = checkNo429(input({ rows, outcomes: [outcome(), outcome({ id: 'c', status: 503 })] }));
    expect(r).toMatchObject({
      verdict: 'pass',
      figure: '0 of 2 client requests got 429 (providers answered 1 429); 1 got other errors',
    });
  });
  it('skips, saying why, when no provider answered 429 (nothing to absorb is not a pass)', () => {
    const r = checkNo429(input({ outcomes: [outcome(), outcome({ id: 'c', status: 503 })] }));
    expect(r.verdict).toBe('skip');
    expect(r.reason).toBe('no provider answered 429: there was no rate limit to absorb');
  });
  it("fails on a provider's 529 passed on to a client", () => {
    const rows = [row({ at: 0, provider: 'anthropic', status: 529, correlationId: 'c' })];
    const r = checkNo429(input({ rows, outcomes: [outcome(), outcome({ id: 'c', status: 529 })] }));
    expect(r).toMatchObject({
      verdict: 'fail',
      figure: '1 of 2 client requests got 429 or 529 (providers answered 0 429s)',
    });
    expect(r.evidence[0]!.detail).toBe('client got 529');
  });
});

describe('checkDeadline', () => {
  it('fails on an answer past the deadline plus tolerance, and on no answer at all', () => {
    const r = checkDeadline(
      input({
        outcomes: [
          outcome({ endAt: 0, deadlineMs: 1000, at: 0 }),
          outcome({ id: 'late', deadlineMs: 100, at: 0, endAt: 1_800_000_000_200 }),
          outcome({
            id: 'gone',
            status: 0,
            error: 'client-timeout',
            at: 0,
            endAt: 1_800_000_003_000,
            deadlineMs: 1000,
          }),
        ],
      }),
    );
    expect(r).toMatchObject({ verdict: 'fail', violations: 2 });
    expect(r.evidence.map((e) => e.detail)).toEqual([
      'answered 100 ms after its 100 ms deadline',
      'no answer within 1000 ms (client-timeout)',
    ]);
  });
  it('passes within the tolerance', () => {
    const stream = outcome({ stream: true, deadlineMs: 100, firstByteAt: 1_800_000_000_090, endAt: 1_800_000_000_149 });
    expect(
      checkDeadline(input({ outcomes: [stream, outcome({ id: 'b', deadlineMs: 100, endAt: 1_800_000_000_140 })] }))
        .verdict,
    ).toBe('pass');
  });
  it('judges a stream at its last byte: a head in time does not make a late stream punctual', () => {
    const stream = outcome({ stream: true, deadlineMs: 100, firstByteAt: 1_800_000_000_090, endAt: 1_800_000_005_000 });
    const r = checkDeadline(input({ outcomes: [stream] }));
    expect(r).toMatchObject({ verdict: 'fail', violations: 1 });
    expect(r.evidence[0]!.detail).toBe(
      'stream began in time (head after 90 ms) but its last byte came 4900 ms after its 100 ms deadline',
    );
  });
});

describe('checkFailoverLatency', () => {
  const rows = [row({ at: 0, correlationId: 'c1', status: 429 }), row({ at: 800, correlationId: 'c1' })];
  it('reports the time failing over added, and passes without a threshold', () => {
    expect(checkFailoverLatency(input({ rows, outcomes: [outcome()] }))).toMatchObject({
      verdict: 'pass',
      value: 800,
      threshold: 'reported only',
    });
  });
  it('fails when the p99 exceeds the threshold', () => {
    expect(
      checkFailoverLatency(
        input({ rows, outcomes: [outcome()], scenario: world('expect: { failoverLatency: { p99: 500ms } }') }),
      ).verdict,
    ).toBe('fail');
  });
  // Two requests failed over, 800 and 900 ms added; the threshold 500 ms.
  const two = [
    row({ at: 0, correlationId: 'c1', status: 429 }),
    row({ at: 800, correlationId: 'c1' }),
    row({ at: 1000, correlationId: 'c2', status: 429 }),
    row({ at: 1900, correlationId: 'c2' }),
  ];
  const strict = world('expect: { failoverLatency: { p99: 500ms } }');
  const judge = (extra: Partial<Parameters<typeof checkFailoverLatency>[0]>) =>
    checkFailoverLatency({
      ...input({ rows: two, outcomes: [outcome(), outcome({ id: 'c2', at: 1000 })], scenario: strict }),
      ...extra,
    });
  it("is INCONCLUSIVE when the router's wait for a CPU during each failover explains the p99 over the threshold", () => {
    const r = judge({ routerWaitMs: stalls([100, 500], [1100, 1600]), loopBehindMs: stalls([1600, 1650]) });
    expect(r.verdict, r.figure).toBe('inconclusive');
    expect(r.reason).toBe(
      "machine overloaded: with the starvation during each request's failover taken out (the harness's event loop behind up to 50 ms, the router's process waiting up to 500 ms for a CPU), the p99 added would be 400 ms, within the threshold",
    );
    expect(r.details).toMatchObject({ addedLessStarvation: { p99: 400, max: 400 } });
  });
  it('still FAILs when the p99 stays over the threshold with the starvation taken out, or the machine was calm', () => {
    // c2 waited 300 ms for a CPU: 600 ms added of its own, over 500 ms.
    expect(judge({ routerWaitMs: stalls([100, 500], [1100, 1400]) }).verdict).toBe('fail');
    expect(judge({ routerWaitMs: stalls(), loopBehindMs: stalls() }).verdict).toBe('fail');
    // A starved span that is not a failover's excuses nothing.
    expect(judge({ routerWaitMs: stalls([2000, 5000]) }).verdict).toBe('fail');
  });
  it('counts in a fleet only the starvation of the replica that served the request', () => {
    const outcomes = [outcome({ replica: 0 }), outcome({ id: 'c2', at: 1000, replica: 0 })];
    const replica0Calm = (from: number, to: number, replica?: number) =>
      replica === 1 ? stalls([0, 2000])(from, to) : 0;
    const r = checkFailoverLatency({
      ...input({ rows: two, outcomes, scenario: strict }),
      routerWaitMs: replica0Calm,
    });
    expect(r.verdict).toBe('fail');
    const own = checkFailoverLatency({
      ...input({ rows: two, outcomes: outcomes.map((o) => ({ ...o, replica: 1 })), scenario: strict }),
      routerWaitMs: replica0Calm,
    });
    expect(own.verdict).toBe('inconclusive');
    expect(own.reason).toBe(
      "machine overloaded: with the starvation during each request's failover taken out (the processes of replica 1 waiting up to 900 ms for a CPU), the p99 added would be 0 ms, within the threshold",
    );
  });
  it('skips when no request needed a second attempt', () => {
    const r = checkFailoverLatency(input({ rows: [row({ correlationId: 'c1' })], outcomes: [outcome()] }));
    expect(r).toMatchObject({ verdict: 'skip', reason: 'no request was answered after more than one attempt' });
  });
});

describe('checkAmplification', () => {
  it('skips when no request reached a provider ("0.00 attempts per request" is not a pass)', () => {
    const r = checkAmplification(input({ outcomes: [outcome({ status: 500 }), outcome({ id: 'c2', status: 500 })] }));
    expect(r).toMatchObject({ verdict: 'skip', reason: 'none of the 2 client requests reached a provider' });
  });
  it('fails when retries exceed their share of traffic', () => {
    const rows = [
      row({ correlationId: 'c1', status: 500 }),
      row({ correlationId: 'c1', status: 500 }),
      row({ correlationId: 'c1' }),
    ];
    const r = checkAmplification(
      input({ rows, outcomes: [outcome()], scenario: world('expect: { amplification: { maxRetryShare: 0.5 } }') }),
    );
    expect(r).toMatchObject({
      verdict: 'fail',
      figure: '3.00 [3.00–3.00] attempts per request (max 3); extra attempts 200.0 % [200.0–200.0] of requests',
    });
  });
  it('is MARGINAL (inconclusive) when the extra-attempt share straddles its maximum', () => {
    // 40 requests, one in five retried once: 20 % extra, against a 25 % maximum, is within the noise.
    const outcomes = Array.from({ length: 40 }, (_, i) => outcome({ id: `q${i}` }));
    const rows = outcomes.flatMap((o, i) => [
      row({ correlationId: o.id }),
      ...(i % 5 === 0 ? [row({ correlationId: o.id })] : []),
    ]);
    const scenario = world('expect: { amplification: { maxRetryShare: 0.25 } }');
    const r = checkAmplification(input({ rows, outcomes, scenario }));
    expect(r.verdict).toBe('inconclusive');
    expect(r.figure).toMatch(/extra attempts 20\.0 % \[\d+\.\d–\d+\.\d\] of requests: MARGINAL$/);
    const many = Array.from({ length: 400 }, (_, i) => outcome({ id: `m${i}` }));
    const fewRetries = many.flatMap((o, i) => [
      row({ correlationId: o.id }),
      ...(i % 10 === 0 ? [row({ correlationId: o.id })] : []),
    ]);
    expect(checkAmplification(input({ rows: fewRetries, outcomes: many, scenario })).verdict).toBe('pass');
  });
  it('passes one attempt per request', () => {
    expect(checkAmplification(input({ rows: [row({ correlationId: 'c1' })], outcomes: [outcome()] })).verdict).toBe(
      'pass',
    );
  });
});

describe('checkKeyIsolation', () => {
  it("fails when a provider received another provider's key", () => {
    const r = checkKeyIsolation(input({ rows: [row(), row({ key: 'foreign:anthropic/main', correlationId: 'x' })] }));
    expect(r).toMatchObject({ verdict: 'fail', violations: 1 });
    expect(r.evidence[0]!.detail).toBe('openai: its credential was the key of anthropic/main');
  });
  it("fails when another provider's key travelled anywhere else in the request, or another org's", () => {
    const r = checkKeyIsolation(
      input({
        rows: [
          row({ carried: ['query:api_key=foreign:anthropic/main'] }),
          row({ carried: ['header:x-fallback=foreign:anthropic/main', 'body=org:org-b/second'] }),
        ],
      }),
    );
    expect(r).toMatchObject({ verdict: 'fail', violations: 2, details: { carriedElsewhere: 2 } });
    expect(r.evidence.map((e) => e.detail)).toEqual([
      'openai: query:api_key carried the key of anthropic/main',
      'openai: header:x-fallback carried the key of anthropic/main; body carried a key of another organisation (org-b/second)',
    ]);
  });
  it('passes with own keys only, and skips without attempts', () => {
    expect(checkKeyIsolation(input({ rows: [row(), row({ key: 'second' })] })).verdict).toBe('pass');
    expect(checkKeyIsolation(input({ rows: [] })).verdict).toBe('skip');
  });
});

describe('checkStreamIntegrity', () => {
  it('fails on a stream that closed silently; an error event is an honest end', () => {
    const r = checkStreamIntegrity(
      input({
        outcomes: [
          outcome({ stream: true, streamEnd: 'done' }),
          outcome({ id: 'e', stream: true, streamEnd: 'error-event' }),
          outcome({ id: 's', stream: true, streamEnd: 'silent' }),
        ],
      }),
    );
    expect(r).toMatchObject({ verdict: 'fail', figure: '1 of 3 streams ended silently (1 ended with an error event)' });
  });
  it('fails on a stream that ended with [DONE] though every attempt behind it broke upstream', () => {
    const cut = row({ correlationId: 'c1', stream: true, end: 'error-event' });
    const r = checkStreamIntegrity(input({ rows: [cut], outcomes: [outcome({ stream: true, streamEnd: 'done' })] }));
    expect(r).toMatchObject({
      verdict: 'fail',
      figure: '1 of 1 stream ended silently (1 as complete though their upstream broke) (0 ended with an error event)',
    });
    expect(r.evidence[0]!.detail).toMatch(/though every attempt behind it broke upstream \(openai error-event\)/);
    // A retry that ran to its end makes the [DONE] true.
    const retried = row({ correlationId: 'c1', stream: true, at: 100 });
    expect(
      checkStreamIntegrity(input({ rows: [cut, retried], outcomes: [outcome({ stream: true, streamEnd: 'done' })] }))
        .verdict,
    ).toBe('pass');
  });
  it('fails on a stream left open after its upstream ended, until the client gave up', () => {
    const cut = row({ correlationId: 'c1', stream: true, end: 'reset' });
    const gaveUp = outcome({ stream: true, streamEnd: null, error: 'client-timeout', frames: 4, endAt: T0 + 7500 });
    const r = checkStreamIntegrity(input({ rows: [cut], outcomes: [gaveUp] }));
    expect(r).toMatchObject({
      verdict: 'fail',
      figure:
        '1 of 1 stream ended silently (1 never ended: left open until the client gave up) (0 ended with an error event)',
      details: { leftOpen: 1 },
    });
    expect(r.evidence[0]!.detail).toBe(
      'stream left open after 4 frames: no [DONE], finish_reason or error event 7500 ms after it was sent, when the client gave up, though every attempt behind it had ended (openai reset)',
    );
  });
  it('calls a stream left open INCONCLUSIVE when the harness or router was starved from its upstream end to the give-up', () => {
    const cut = row({ correlationId: 'c1', stream: true, end: 'reset' });
    const gaveUp = outcome({ stream: true, streamEnd: null, error: 'client-timeout', frames: 4, endAt: T0 + 7500 });
    // The attempt ended at 20 ms; the loop was behind for all the 7 480 ms until the client gave up.
    const behind = (share: number) => (a: number, b: number) => (b - a) * share;
    const starved = checkStreamIntegrity({ ...input({ rows: [cut], outcomes: [gaveUp] }), loopBehindMs: behind(1) });
    expect(starved).toMatchObject({ verdict: 'inconclusive', details: { leftOpen: 1 } });
    expect(starved.reason).toBe(
      "machine overloaded: each of the 1 stream left open after its upstream ended had no CPU to end it: the harness's loop was behind 7480 ms of the 7480 ms until the client gave up",
    );
    // Behind for less than that gap, the router had time to end the stream: a failure still.
    const partly = checkStreamIntegrity({ ...input({ rows: [cut], outcomes: [gaveUp] }), loopBehindMs: behind(0.5) });
    expect(partly.verdict).toBe('fail');
    // A stream that closed silently is never the machine's doing, starved or not.
    const silent = outcome({ id: 'c2', stream: true, streamEnd: 'silent', frames: 2 });
    expect(
      checkStreamIntegrity({ ...input({ rows: [cut], outcomes: [gaveUp, silent] }), loopBehindMs: behind(1) }).verdict,
    ).toBe('fail');
  });
  it('leaves a stream still relaying its attempt when the client gave up to the deadline check', () => {
    const running = row({ correlationId: 'c1', stream: true, end: 'client-abort' });
    const late = outcome({ stream: true, streamEnd: null, error: 'client-timeout', endAt: running.endAt! });
    expect(checkStreamIntegrity(input({ rows: [running], outcomes: [late] })).verdict).toBe('pass');
    const pending = { ...running, endAt: null, end: 'pending' as const };
    expect(checkStreamIntegrity(input({ rows: [pending], outcomes: [late] })).verdict).toBe('pass');
  });
  it('passes when every stream ended with [DONE] or an error event, and skips without streams', () => {
    expect(checkStreamIntegrity(input({ outcomes: [outcome({ stream: true, streamEnd: 'done' })] })).verdict).toBe(
      'pass',
    );
    expect(checkStreamIntegrity(input({ outcomes: [outcome()] })).verdict).toBe('skip');
  });
});

describe('checkUsage', () => {
  const served = row({ correlationId: 'c1', tokensIn: 42, tokensOut: 7 });
  it('fails when the router reported other token counts than the provider served', () => {
    const r = checkUsage(input({ rows: [served], outcomes: [outcome({ usage: { prompt: 40, completion: 7 } })] }));
    expect(r).toMatchObject({ verdict: 'fail', violations: 1 });
    expect(r.evidence[0]!.detail).toBe('router reported 40+7 tokens; the provider metered 42+7');
  });
  it('passes on exact usage, judged against the attempt that answered', () => {
    const failedFirst = row({ correlationId: 'c1', status: 500, tokensIn: 0, tokensOut: 0 });
    expect(
      checkUsage(input({ rows: [failedFirst, served], outcomes: [outcome({ usage: { prompt: 42, completion: 7 } })] }))
        .verdict,
    ).toBe('pass');
  });
  it('fails an answer without usage (a stream that asked for it, or a plain completion)', () => {
    const r = checkUsage(
      input({ rows: [served], outcomes: [outcome({ usage: null, stream: true, streamEnd: 'finish' })] }),
    );
    expect(r).toMatchObject({ verdict: 'fail', details: { missing: 1 } });
    expect(r.evidence[0]!.detail).toMatch(/^stream asked for usage \(stream_options.include_usage\) and got none/);
  });
  it('skips when no served answer can be traced to a provider, or when told not to check', () => {
    expect(checkUsage(input({ rows: [], outcomes: [outcome()] })).verdict).toBe('skip');
    expect(
      checkUsage(
        input({ rows: [served], outcomes: [outcome()], scenario: world('expect: { usage: { source: none } }\n') }),
      ).verdict,
    ).toBe('skip');
  });
});
