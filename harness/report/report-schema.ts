import { z } from 'zod';
import { CHECK_IDS } from '../scenario/schema.js';

// The bounds are far above what `buildReport` writes (4,000 points per provider, 20,000 failover
// values, one bucket per second of load) and far below what would stall the renderers: a crafted
// report.json with two million points must be refused, not drawn for ever.
const MAX_POINTS = 20_000;
const MAX_SECONDS = 100_000;
const MAX_TEXT = 100_000;
const MAX_REPORTS = 1000;

const Text = z.string().max(MAX_TEXT);
const Num = z.number();
const Nullable = Num.nullable();
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
const Latency = z.looseObject({ count: Num, p50: Nullable, p90: Nullable, p99: Nullable, max: Nullable });
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
  violations: Num,
  evidence: z.array(Evidence).max(1000),
});

const Provider = z.looseObject({
  id: Text,
  lanes: z.array(Text).max(10_000),
  attempts: z.array(Point).max(MAX_POINTS),
  windows: z.array(Point).max(MAX_POINTS),
  totals: z.looseObject({ attempts: Num, byStatus: z.record(z.string(), Num) }),
  cache: z
    .looseObject({
      answered: Num,
      hits: Num,
      hitRate: Num,
      inputTokens: Num,
      cachedTokens: Num,
      writeTokens: Num,
      tokenShare: Num,
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
  startedAt: Text,
  durationMs: Num,
  load: z.looseObject({
    mode: z.enum(['open', 'closed']),
    durationMs: Num,
    rate: Num.optional(),
    connections: Num.optional(),
    deadlineMs: Num,
    sent: Num,
    dropped: Num,
    interrupted: z.boolean(),
    streams: Num,
    achievedRate: Num,
    byStatus: z.record(z.string(), Num),
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
