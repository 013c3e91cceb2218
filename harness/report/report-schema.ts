import { z } from 'zod';
import { CHECK_IDS } from '../scenario/schema.js';

// The bounds are far above what `buildReport` writes (4,000 points per provider, but every failed
// attempt and announced wait: 29,003 for OpenAI over the simulated day; 20,000 failover values, one
// bucket per second of load) and far below what would stall the renderers: a crafted report.json
// with two million points must be refused, not drawn for ever.
const MAX_POINTS = 200_000;
const MAX_SECONDS = 100_000;
const MAX_TEXT = 100_000;
const MAX_REPORTS = 1000;

const Text = z.string().max(MAX_TEXT);
// JSON has no NaN, but a report.json edited by hand may say 1e999 (Infinity) or -1e308: zod 4's
// number refuses the first; counts, times and shares refuse the rest, which `report --compare`
// would otherwise divide by ("−0.0 %" answered).
const Num = z.number();
const Nullable = Num.nullable();
/** A count: a whole number, not negative. */
const Count = z.number().nonnegative().int();
/** A duration or a rate: not negative. */
const Ms = z.number().nonnegative();
/** A share: between 0 and 1. */
const Share = z.number().min(0).max(1);
/** The router's run-queue figures (`RunQueueSummary`): the whole router's, and each replica's. */
const RunQueueFigures = {
  totalMs: Num,
  worstWindowMs: Num,
  windowMs: Num,
  samples: Num,
  processes: Num,
  threads: Num,
  executables: z.array(z.string().max(256)).max(64).optional(),
};
const Latency = z.looseObject({
  count: Count,
  p50: Ms.nullable(),
  p90: Ms.nullable(),
  p99: Ms.nullable(),
  max: Ms.nullable(),
});
const Point = z.tuple([Num, Num, Num]);

const Evidence = z.looseObject({
  at: Num.optional(),
  correlationId: Text.nullable().optional(),
  detail: Text,
});

const Check = z.looseObject({
  id: z.enum(CHECK_IDS),
  title: Text,
  meaning: Text,
  verdict: z.enum(['pass', 'fail', 'skip', 'inconclusive']),
  reason: Text.optional(),
  figure: Text,
  value: Nullable,
  threshold: Text.optional(),
  violations: Count,
  evidence: z.array(Evidence).max(1000),
  judgedMs: z.number().nonnegative().optional(),
});

const Provider = z.looseObject({
  id: Text,
  lanes: z.array(Text).max(10_000),
  attempts: z.array(Point).max(MAX_POINTS),
  windows: z.array(Point).max(MAX_POINTS),
  totals: z.looseObject({ attempts: Count, byStatus: z.record(z.string(), Count) }),
  cache: z
    .looseObject({
      answered: Count,
      hits: Count,
      hitRate: Share,
      inputTokens: Count,
      cachedTokens: Count,
      writeTokens: Count,
      tokenShare: Share,
    })
    .optional(),
});

/** One run's report as `throttlelab report` accepts it: the renderers' fields typed and bounded. */
export const ReportSchema = z.looseObject({
  schema: z.literal('throttlelab.report/v1'),
  tool: z.looseObject({ name: z.literal('throttlelab'), version: Text }),
  scenario: z.looseObject({ name: Text, description: Text.optional(), file: Text, sha256: Text }),
  seed: Num,
  router: Text,
  routerRedacted: z.boolean().optional(),
  verdict: z.enum(['pass', 'fail', 'inconclusive', 'interrupted']),
  inconclusive: z.array(Text).max(1000).optional(),
  judgingStopped: z.looseObject({ judged: z.array(Text).max(100), notJudged: z.array(Text).max(100) }).optional(),
  faults: z
    .array(z.looseObject({ id: Text, kind: Text, at: Num, for: Nullable, optional: z.boolean(), matched: Num }))
    .max(10_000)
    .optional(),
  lag: z.looseObject({ loopP99Ms: Num, loopMaxMs: Num, sendP99Ms: Num, sendMaxMs: Num }).optional(),
  routerRunQueue: z
    .union([
      z.looseObject({
        ...RunQueueFigures,
        replicas: z.array(z.looseObject(RunQueueFigures)).max(1000).optional(),
      }),
      z.looseObject({ unavailable: Text }),
    ])
    .optional(),
  evidence: z
    .looseObject({
      mode: z.enum(['full', 'summary', 'none']),
      files: z.array(Text).max(10),
      attempts: Count,
      outcomes: Count,
      of: z.looseObject({ attempts: Count, outcomes: Count }),
    })
    .optional(),
  startedAt: Text,
  durationMs: Ms,
  load: z.looseObject({
    mode: z.enum(['open', 'closed']),
    durationMs: Ms,
    rate: Ms.optional(),
    connections: Count.optional(),
    deadlineMs: Ms,
    sent: Count,
    dropped: Count,
    interrupted: z.boolean(),
    streams: Count,
    achievedRate: Ms,
    byStatus: z.record(z.string(), Count),
  }),
  latency: z.looseObject({ answered: Latency, ttft: Latency }),
  checks: z.array(Check).max(100),
  series: z.looseObject({
    latency: z.looseObject({ boundsMs: z.array(Num).max(100), counts: z.array(Num).max(100) }),
    failoverAddedMs: z.array(Num).max(MAX_POINTS),
    perSecond: z
      .array(z.looseObject({ t: Num, ok: Num, clientError: Num, serverError: Num, none: Num }))
      .max(MAX_SECONDS),
    providers: z.array(Provider).max(1000),
  }),
});

/** A conformance pack's report: the reports of its scenarios. */
export const ReportsSchema = z.looseObject({
  schema: z.literal('throttlelab.reports/v1'),
  reports: z.array(ReportSchema).min(1).max(MAX_REPORTS),
});
