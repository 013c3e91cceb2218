// Over 300 lines on purpose: every renderer (text, Markdown, JUnit, HTML) pinned against the same judged run.
import { describe, expect, it } from 'vitest';
import { input, limited, outcome, row, T0, world } from '../../test/helpers/evidence.js';
import { runChecks, overallVerdict } from '../checks/run-checks.js';
import { clausesOf } from '../spec/clauses.js';
import { buildReport } from './build-report.js';
import { renderHtml } from './render-html.js';
import { distinctPoints, mergedBands, throughputChart, timelineChart } from './charts.js';
import { coverageLines, renderJunit, renderMarkdown, renderVerdictTable } from './render-text.js';
import { reportsOf } from './write-report.js';

// A small run: one request failed over after a 429, one came back inside the announced wait.
function sampleReport() {
  const scenario = world(`load: { mode: open, duration: 2s, rate: 2, requests: { deadline: 3s } }`);
  const rows = [
    limited(0, 1000, { seq: 0, correlationId: 'r-0' }),
    row({ seq: 1, at: 2, provider: 'anthropic', vendor: 'anthropic', model: 'claude-haiku-4-5', correlationId: 'r-0' }),
    row({ seq: 2, at: 500, correlationId: 'r-1' }),
  ];
  const outcomes = [
    outcome({ id: 'r-0', at: 0 }),
    outcome({ id: 'r-1', at: 499, status: 429, error: 'rate_limit_exceeded', usage: null }),
  ];
  // A fake judging clock: check k takes 4k+1 ms to judge (squares' differences), its JUnit time.
  let tick = 0;
  const checks = runChecks({ ...input({ rows, outcomes, scenario }), judgeClock: () => (tick++) ** 2 });
  return buildReport({
    scenario,
    scenarioFile: 'synthetic.yaml',
    scenarioSha256: 'ab'.repeat(32),
    seed: 7,
    router: 'the test router',
    startedAt: T0,
    endedAt: T0 + 2500,
    loadStartedAt: T0,
    loadEndedAt: T0 + 2000,
    dropped: 0,
    interrupted: false,
    outcomes,
    rows,
    checks,
    verdict: overallVerdict(checks),
  });
}

describe('report renderers', () => {
  it("says how long the router's process waited for a CPU, or why that was not measured", () => {
    const measured = {
      ...sampleReport(),
      routerRunQueue: {
        totalMs: 1234.5,
        worstWindowMs: 456.7,
        windowMs: 1000,
        samples: 400,
        processes: 2,
        threads: 2,
        executables: ['node', 'sh'],
      },
    };
    expect(coverageLines(measured)).toEqual([
      'router run-queue delay (waiting for a CPU): total 1235 ms, worst 1 s window 457 ms (2 threads counted in 2 processes: node, sh)',
    ]);
    const replica = { windowMs: 1000, samples: 400, processes: 1, threads: 1 };
    const fleet = {
      ...sampleReport(),
      routerRunQueue: {
        ...measured.routerRunQueue,
        replicas: [
          { ...replica, totalMs: 1200.2, worstWindowMs: 450 },
          { ...replica, totalMs: 34.3, worstWindowMs: 12.5 },
        ],
      },
    };
    expect(coverageLines(fleet)).toEqual([
      'router run-queue delay (waiting for a CPU): total 1235 ms, worst 1 s window 457 ms (2 threads counted in 2 processes: node, sh); by replica (each excuses only its own requests): 0 total 1200 ms, worst 450 ms; 1 total 34 ms, worst 13 ms',
    ]);
    const elsewhere = {
      ...sampleReport(),
      routerRunQueue: { unavailable: 'the harness did not start the router, so it has no process to read' },
    };
    expect(coverageLines(elsewhere)).toEqual([
      "router run-queue delay: not measured: the harness did not start the router, so it has no process to read; the timing checks allow only for the harness's own stalls",
    ]);
  });

  it('prints a verdict table a newcomer can read, with the evidence of each failure', () => {
    expect(renderVerdictTable(sampleReport())).toMatchInlineSnapshot(`
      "scenario "synthetic" (seed 7; replay with --seed 7) against the test router
      load: open loop, 2 req/s for 2 s: 2 requests (0 streaming), deadline 3 s
      answers: 1×200, 1×429; latency p50 100 ms, p99 100 ms

        check              verdict       figure
        no-429             FAIL          1 of 2 client requests got 429 (providers answered 1 429)
        retry-after        FAIL          worst early arrival 500 ms; 1 early attempt over 1 announced wait, 1 broken (100.0 %)
        deadline           PASS          all 2 answered in time (closest: 4900 ms to spare)
        failover-latency   PASS          1 request failed over: added p50 2 ms, p90 2 ms, p99 2 ms, max 2 ms
        single-probe       SKIP          no wait ended with traffic after it
        no-blind-retry     SKIP          no hint-less failures
        amplification      INCONCLUSIVE  1.50 [0.68–2.32] attempts per request (max 2); extra attempts 50.0 % [0.0–132.3] of requests: MARGINAL
        goodput            FAIL          50.0 % [12.1–87.9] served (1 of 2), needs ≥ 95.0 %
        key-isolation      PASS          no foreign keys in 3 attempts (credentials, headers, query parameters and bodies)
        stream-integrity   SKIP          no streams were answered
        answer-integrity   PASS          the 1 answer backed by a successful attempt for the model asked
        content-integrity  SKIP          no answer of 1 request could be traced to an upstream success with text
        usage              PASS          usage present and exact on the 1 answer
        no-needless-error  FAIL          1 of 1 error answered while capacity existed (deadline less 1000 ms)
        recovery           SKIP          no reopening to judge
        own-answers        SKIP          1 error answer but none recorded whole (status, headers and body)
        no-leak            SKIP          no error answer or in-stream error event of the router was recorded to read
        request-fidelity   SKIP          nothing to compare
        cache-use          SKIP          nothing to judge
        client-errors      SKIP          the load sent no request invalid on its face
        duplicate-work     PASS          each of 2 answered requests billed one complete answer

      no-blind-retry skip: no attempt failed without a wait hint
      amplification inconclusive: MARGINAL: a confidence interval straddles its threshold; more requests would decide
          [r-0] 1.50 attempts per request on average; request r-0 took 2
      recovery skip: no provider the router had used reopened with requests for it still coming 10000 ms later
      request-fidelity skip: the load recorded no request parameters (load.requests.surface draws them)
      cache-use skip: no request the load recorded carried a cache hint (load.requests.surface.cacheHints)
      no-429: The router absorbed every provider rate limit; no client request was answered 429.
          breaks SIG-1 (MUST: No 429 reaches the client) of docs/spec.md
          [r-1] client got 429 (rate_limit_exceeded)
      retry-after: After a provider announced a wait (Retry-After, retry-after-ms, reset headers or a body hint), nothing was sent to that key and model (or, where the limit is an organisation's, to its other keys) before it ended.
          breaks SIG-2 (MUST: Every wait form is decoded and honoured), SIG-3 (MUST: A wait covers the whole scope it was announced for) of docs/spec.md
          [r-1] arrived 500 ms before the end of a 1000 ms wait announced by attempt #0 (seconds); 500 ms into it
      goodput: Of the requests the providers had capacity for, the share the router did serve.
          breaks CAP-1 (MUST: The router serves what the weather allowed) of docs/spec.md
          [r-1] not served: status 429 (rate_limit_exceeded)
      no-needless-error: No request was answered with an error (429 or 5xx) while a provider it could go to had capacity before its deadline.
          breaks FO-2 (MUST: No needless error) of docs/spec.md
          [r-1] answered 429 (rate_limit_exceeded) after 100 ms, while openai had capacity when it came, until its deadline (its deadline: 5000 ms)
      verdict: FAIL (6 passed, 4 failed, 10 skipped, 1 inconclusive)"
    `);
  });

  it('names the spec clause a failed check judges in text, Markdown, JUnit and HTML', () => {
    const r = sampleReport();
    const keys = r.checks.find((c) => c.id === 'key-isolation')!;
    Object.assign(keys, {
      verdict: 'fail',
      evidence: [{ correlationId: 'r-0', detail: 'openai: x-backup-api-key carried the key of anthropic' }],
    });
    const words = 'breaks KEY-1 (MUST: Keys stay with their provider) of docs/spec.md';
    for (const text of [renderVerdictTable(r), renderMarkdown([r]), renderHtml([r])]) expect(text).toContain(words);
    expect(renderJunit([r])).toContain(`; ${words}">`);
    // A check no clause judges yet says nothing of the spec.
    const judged = r.checks.filter((c) => c.verdict === 'fail' && clausesOf(c.id).length > 0);
    expect(renderVerdictTable(r).match(/breaks [A-Z]+-\d/g)).toHaveLength(judged.length);
  });

  it('says in text, Markdown, JUnit and HTML which optional fault met no attempt, and not of a forced one', () => {
    const r = sampleReport();
    r.faults = [
      { id: 'openai-hang', kind: 'hang', at: 1000, for: 2000, optional: true, matched: 0 },
      { id: 'groq-reset', kind: 'reset', at: 3000, for: 2000, optional: true, matched: 4 },
    ];
    const words = 'optional fault "openai-hang" (hang) met no attempt';
    for (const text of [renderVerdictTable(r), renderMarkdown([r])]) {
      expect(text).toContain(`${words}: what it tests went untested at this seed`);
      expect(text).not.toContain('"groq-reset" (reset) met no attempt');
    }
    expect(renderHtml([r])).toMatch(/optional fault (&quot;|&#34;)openai-hang(&quot;|&#34;) \(hang\) met no attempt/);
    expect(renderJunit([r])).toContain(
      `name="fault-met:openai-hang" time="0"><skipped message="${words.replace(/"/g, '&quot;')}"/>`,
    );
    expect(renderJunit([r])).not.toContain('fault-met:groq-reset');
  });

  it('writes Markdown for CI job summaries', () => {
    expect(renderMarkdown([sampleReport()])).toMatchInlineSnapshot(`
      "### ❌ synthetic

      Router: the test router · seed 7 · 2 requests · latency p50 100 ms, p99 100 ms

      | check | verdict | figure |
      |---|---|---|
      | no-429 | ❌ fail | 1 of 2 client requests got 429 (providers answered 1 429) |
      | retry-after | ❌ fail | worst early arrival 500 ms; 1 early attempt over 1 announced wait, 1 broken (100.0 %) |
      | deadline | ✅ pass | all 2 answered in time (closest: 4900 ms to spare) |
      | failover-latency | ✅ pass | 1 request failed over: added p50 2 ms, p90 2 ms, p99 2 ms, max 2 ms |
      | single-probe | ➖ skip | no wait ended with traffic after it |
      | no-blind-retry | ➖ skip | no hint-less failures (no attempt failed without a wait hint) |
      | amplification | ❔ inconclusive | 1.50 [0.68–2.32] attempts per request (max 2); extra attempts 50.0 % [0.0–132.3] of requests: MARGINAL (MARGINAL: a confidence interval straddles its threshold; more requests would decide) |
      | goodput | ❌ fail | 50.0 % [12.1–87.9] served (1 of 2), needs ≥ 95.0 % |
      | key-isolation | ✅ pass | no foreign keys in 3 attempts (credentials, headers, query parameters and bodies) |
      | stream-integrity | ➖ skip | no streams were answered |
      | answer-integrity | ✅ pass | the 1 answer backed by a successful attempt for the model asked |
      | content-integrity | ➖ skip | no answer of 1 request could be traced to an upstream success with text |
      | usage | ✅ pass | usage present and exact on the 1 answer |
      | no-needless-error | ❌ fail | 1 of 1 error answered while capacity existed (deadline less 1000 ms) |
      | recovery | ➖ skip | no reopening to judge (no provider the router had used reopened with requests for it still coming 10000 ms later) |
      | own-answers | ➖ skip | 1 error answer but none recorded whole (status, headers and body) |
      | no-leak | ➖ skip | no error answer or in-stream error event of the router was recorded to read |
      | request-fidelity | ➖ skip | nothing to compare (the load recorded no request parameters (load.requests.surface draws them)) |
      | cache-use | ➖ skip | nothing to judge (no request the load recorded carried a cache hint (load.requests.surface.cacheHints)) |
      | client-errors | ➖ skip | the load sent no request invalid on its face |
      | duplicate-work | ✅ pass | each of 2 answered requests billed one complete answer |

      **no-429** — The router absorbed every provider rate limit; no client request was answered 429. (breaks SIG-1 (MUST: No 429 reaches the client) of docs/spec.md)

      - \`r-1\` client got 429 (rate_limit_exceeded)

      **retry-after** — After a provider announced a wait (Retry-After, retry-after-ms, reset headers or a body hint), nothing was sent to that key and model (or, where the limit is an organisation's, to its other keys) before it ended. (breaks SIG-2 (MUST: Every wait form is decoded and honoured), SIG-3 (MUST: A wait covers the whole scope it was announced for) of docs/spec.md)

      - \`r-1\` arrived 500 ms before the end of a 1000 ms wait announced by attempt #0 (seconds); 500 ms into it

      **goodput** — Of the requests the providers had capacity for, the share the router did serve. (breaks CAP-1 (MUST: The router serves what the weather allowed) of docs/spec.md)

      - \`r-1\` not served: status 429 (rate_limit_exceeded)

      **no-needless-error** — No request was answered with an error (429 or 5xx) while a provider it could go to had capacity before its deadline. (breaks FO-2 (MUST: No needless error) of docs/spec.md)

      - \`r-1\` answered 429 (rate_limit_exceeded) after 100 ms, while openai had capacity when it came, until its deadline (its deadline: 5000 ms)

      "
    `);
  });

  it('writes an inconclusive run as skipped, not an error, as its exit code 3 is neither pass nor fail', () => {
    const r = {
      ...sampleReport(),
      verdict: 'inconclusive' as const,
      inconclusive: ['fault "storm" matched no attempt'],
    };
    r.checks = r.checks.filter((c) => c.verdict !== 'fail');
    const xml = renderJunit([r]);
    expect(xml).toContain(
      '<testcase classname="throttlelab.synthetic" name="run-conclusive" time="0"><skipped message="INCONCLUSIVE: fault &quot;storm&quot; matched no attempt"/></testcase>',
    );
    expect(xml).not.toContain('<error');
    expect(xml).not.toContain('errors=');
    expect(xml).toMatch(/tests="18" failures="0" skipped="12"/);
  });

  it('writes JUnit XML with a test case per check', () => {
    expect(renderJunit([sampleReport()])).toMatchInlineSnapshot(`
      "<?xml version="1.0" encoding="UTF-8"?>
      <testsuites name="throttlelab">
        <testsuite name="synthetic" tests="21" failures="4" skipped="11" time="2.500" timestamp="2027-01-15T08:00:00.000Z">
          <testcase classname="throttlelab.synthetic" name="no-429" time="0.001"><failure message="1 of 2 client requests got 429 (providers answered 1 429); breaks SIG-1 (MUST: No 429 reaches the client) of docs/spec.md">r-1 client got 429 (rate_limit_exceeded)</failure></testcase>
          <testcase classname="throttlelab.synthetic" name="retry-after" time="0.005"><failure message="worst early arrival 500 ms; 1 early attempt over 1 announced wait, 1 broken (100.0 %); breaks SIG-2 (MUST: Every wait form is decoded and honoured), SIG-3 (MUST: A wait covers the whole scope it was announced for) of docs/spec.md">r-1 arrived 500 ms before the end of a 1000 ms wait announced by attempt #0 (seconds); 500 ms into it</failure></testcase>
          <testcase classname="throttlelab.synthetic" name="deadline" time="0.009"></testcase>
          <testcase classname="throttlelab.synthetic" name="failover-latency" time="0.013"></testcase>
          <testcase classname="throttlelab.synthetic" name="single-probe" time="0.017"><skipped message="no wait ended with traffic after it"/></testcase>
          <testcase classname="throttlelab.synthetic" name="no-blind-retry" time="0.021"><skipped message="no attempt failed without a wait hint"/></testcase>
          <testcase classname="throttlelab.synthetic" name="amplification" time="0.025"><skipped message="INCONCLUSIVE: MARGINAL: a confidence interval straddles its threshold; more requests would decide"/></testcase>
          <testcase classname="throttlelab.synthetic" name="goodput" time="0.029"><failure message="50.0 % [12.1–87.9] served (1 of 2), needs ≥ 95.0 %; breaks CAP-1 (MUST: The router serves what the weather allowed) of docs/spec.md">r-1 not served: status 429 (rate_limit_exceeded)</failure></testcase>
          <testcase classname="throttlelab.synthetic" name="key-isolation" time="0.033"></testcase>
          <testcase classname="throttlelab.synthetic" name="stream-integrity" time="0.037"><skipped message="no streams were answered"/></testcase>
          <testcase classname="throttlelab.synthetic" name="answer-integrity" time="0.041"></testcase>
          <testcase classname="throttlelab.synthetic" name="content-integrity" time="0.045"><skipped message="no answer of 1 request could be traced to an upstream success with text"/></testcase>
          <testcase classname="throttlelab.synthetic" name="usage" time="0.049"></testcase>
          <testcase classname="throttlelab.synthetic" name="no-needless-error" time="0.053"><failure message="1 of 1 error answered while capacity existed (deadline less 1000 ms); breaks FO-2 (MUST: No needless error) of docs/spec.md">r-1 answered 429 (rate_limit_exceeded) after 100 ms, while openai had capacity when it came, until its deadline (its deadline: 5000 ms)</failure></testcase>
          <testcase classname="throttlelab.synthetic" name="recovery" time="0.057"><skipped message="no provider the router had used reopened with requests for it still coming 10000 ms later"/></testcase>
          <testcase classname="throttlelab.synthetic" name="own-answers" time="0.061"><skipped message="1 error answer but none recorded whole (status, headers and body)"/></testcase>
          <testcase classname="throttlelab.synthetic" name="no-leak" time="0.065"><skipped message="no error answer or in-stream error event of the router was recorded to read"/></testcase>
          <testcase classname="throttlelab.synthetic" name="request-fidelity" time="0.069"><skipped message="the load recorded no request parameters (load.requests.surface draws them)"/></testcase>
          <testcase classname="throttlelab.synthetic" name="cache-use" time="0.073"><skipped message="no request the load recorded carried a cache hint (load.requests.surface.cacheHints)"/></testcase>
          <testcase classname="throttlelab.synthetic" name="client-errors" time="0.077"><skipped message="the load sent no request invalid on its face"/></testcase>
          <testcase classname="throttlelab.synthetic" name="duplicate-work" time="0.081"></testcase>
        </testsuite>
      </testsuites>
      "
    `);
  });

  it('draws a self-contained HTML page with SVG charts and the announced waits', () => {
    const html = renderHtml([sampleReport()]);
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|<link|src="http/);
    expect(html.match(/<svg/g)!.length).toBeGreaterThanOrEqual(4);
    expect(html).toContain('shaded bands are waits the provider announced');
    expect(html).toContain('r-1');
  });

  it("draws a day's answers per second as a few hundred averaged bars, not 86 400", () => {
    const day = sampleReport();
    day.series.perSecond = Array.from({ length: 86_400 }, (_, t) => ({
      t,
      ok: t % 2 === 0 ? 20 : 10,
      clientError: 0,
      serverError: 0,
      none: 0,
    }));
    const chart = throughputChart(day);
    expect(chart).toContain('average over 144 s');
    // One bar per bucket and class drawn (600 buckets of 144 s, each averaging 15 answers a second).
    const bars = chart.match(/<path d="M/g)?.length ?? 0;
    expect(bars).toBeGreaterThan(500);
    expect(bars).toBeLessThan(3000);
    expect(throughputChart(sampleReport())).not.toContain('average over');
  });

  it('draws waits closer than half a pixel as one band, and keeps lanes and wider gaps apart', () => {
    const bands = mergedBands(
      [
        [10, 20, 0],
        [0, 5, 0],
        [5.4, 8, 0],
        [19, 30, 0],
        [31, 40, 0],
        [0, 100, 1],
      ],
      0.5,
    );
    expect(bands).toEqual([
      [0, 8, 0],
      [10, 30, 0],
      [31, 40, 0],
      [0, 100, 1],
    ]);
    expect(
      distinctPoints(
        [
          [0, 0, 200],
          [0.4, 0, 200],
          [0.6, 1, 200],
          [1.2, 0, 200],
        ],
        0.5,
      ),
    ).toEqual([
      [0, 0],
      [0.6, 1],
      [1.2, 0],
    ]);
  });

  it("draws a day's 16 000 announced waits as a few bands, keeping the daily wall to its reset", () => {
    // A wait of 4 s every 5 s across a day (as OpenAI's lane had), and an 8-hour wall in the other lane.
    const windows: Array<[number, number, number]> = Array.from({ length: 16_000 }, (_, i) => [i * 5, i * 5 + 4, 0]);
    windows.push([100, 28_800, 1]);
    const attempts: Array<[number, number, number]> = windows.map(([from, , lane]) => [from, lane, 429]);
    const chart = timelineChart(
      { id: 'openai', lanes: ['k1 · m', 'k2 · m'], attempts, windows, totals: { attempts: 16_001, byStatus: {} } },
      86_400,
    );
    const paths = chart.match(/<path /g)?.length ?? 0;
    expect(paths).toBeLessThan(2_000);
    // Each shaded band is a path filled with the wait colour: the day's merged run of waits and the wall.
    const bands = chart.match(/fill="rgb\(217,130,43\)" fill-opacity="0\.22"/g)?.length ?? 0;
    expect(bands).toBe(2);
  });

  it('reads back what it wrote, and refuses anything else', () => {
    const r = sampleReport();
    expect(reportsOf(JSON.parse(JSON.stringify(r)))).toEqual([JSON.parse(JSON.stringify(r))]);
    expect(reportsOf({ schema: 'throttlelab.reports/v1', reports: [r] })).toHaveLength(1);
    expect(() => reportsOf({ hello: 1 })).toThrow('Failed to read the report: it is not a throttlelab report');
  });
});
