import fc from 'fast-check';
import type { ProviderDoc, SimFaultDoc } from './scenario-doc.js';

/**
 * The bounds every drawn fault keeps. Times are in ms from the load's start, on a 100 ms grid so a
 * saved regression reads as written by hand.
 */
export const WEATHER_BOUNDS = {
  /** Most faults one seed draws (zero is a calm day, and a valid draw). */
  maxFaults: 4,
  /** Shortest fault. */
  minForMs: 200,
  /** Longest burst, storm, hang or hold window (walls last to the load's end; breaks may too). */
  maxForMs: 4000,
  /** The waits a burst announces, honestly: 1 s to 8 s, whole seconds. */
  burstHintS: [1, 8],
  /** How long a keep-alive hold lasts before the answer continues or closes. */
  holdForMs: [2000, 20_000],
  /** The wait a quota wall announces, when it does: 1 h to 7 h (Gemini's daily wall says ~7 h). */
  wallHintH: [1, 7],
  /** Most quota squeezes one seed draws, and the requests each lets through per window. */
  maxSqueezes: 2,
  squeezeLimit: [2, 20],
} as const;

/** The kinds of weather the grammar knows, each a real simulator fault (see docs/weather.md). */
export const WEATHER_KINDS = ['burst', 'storm', 'wall', 'hang', 'hold', 'break', 'lie'] as const;
export type WeatherKind = (typeof WEATHER_KINDS)[number];

/** What faults a draw may aim at, and when. */
export interface WeatherWorld {
  /** Providers that may be faulted: every provider but the sheltered one. */
  targets: readonly ProviderDoc[];
  durationMs: number;
  /** Whether any request streams (a mid-stream break matches nothing otherwise). */
  streams: boolean;
}

type Match = NonNullable<SimFaultDoc['match']>;
// The body of a fault: everything but its id, timing and whom it matches.
type FaultBody = Record<string, unknown> & { kind: string };

const GRID = 100;
const onGrid = (ms: number) => Math.round(ms / GRID) * GRID;
const between = ([min, max]: readonly [number, number]) => fc.integer({ min, max });

/**
 * Whom a fault matches: a whole provider, one of its keys, the keys of one org, or one model (the
 * simulator's quota scopes; it has no projects, so "project" is not drawn).
 */
function scopeArb(p: ProviderDoc): fc.Arbitrary<Match> {
  const orgs = [...new Set(p.keys.flatMap((k) => (k.org ? [k.org] : [])))];
  const scopes: Array<fc.Arbitrary<Match>> = [
    fc.constant({ provider: p.id }),
    fc.constantFrom(...p.keys.map((k) => k.id)).map((key) => ({ provider: p.id, key })),
    fc.constantFrom(...p.models).map((model) => ({ provider: p.id, model })),
  ];
  if (orgs.length > 0)
    scopes.push(
      fc.constantFrom(...orgs).map((org) => ({
        provider: p.id,
        key: p.keys.filter((k) => k.org === org).map((k) => k.id),
      })),
    );
  return fc.oneof(...scopes);
}

/** A fault's body by kind; `vendor` decides what a storm looks like (Anthropic's is a 529). */
function bodyArb(kind: WeatherKind, vendor: string): fc.Arbitrary<FaultBody> {
  switch (kind) {
    case 'burst':
      return fc.record({
        kind: fc.constant('status'),
        status: fc.constant(429),
        hint: fc.record({
          form: fc.constantFrom('vendor', 'seconds', 'ms'),
          after: between(WEATHER_BOUNDS.burstHintS).map((s) => `${s}s`),
        }),
      });
    case 'storm':
      return vendor === 'anthropic'
        ? fc.record({ kind: fc.constant('status'), status: fc.constant(529) })
        : fc.record({
            kind: fc.constant('status'),
            status: fc.constant(503),
            error: fc.constantFrom('overloaded', 'unavailable'),
          });
    case 'wall':
      return fc.record(
        {
          kind: fc.constant('status'),
          status: fc.constant(429),
          error: fc.constant('quota_exhausted'),
          hint: between(WEATHER_BOUNDS.wallHintH).map((h) => ({ form: 'vendor', after: `${h}h` })),
        },
        { requiredKeys: ['kind', 'status', 'error'] },
      );
    case 'hang':
      return fc.record({ kind: fc.constant('hang'), afterHeaders: fc.boolean() });
    case 'hold':
      return fc.record({
        kind: fc.constant('keep-alive'),
        holdFor: between(WEATHER_BOUNDS.holdForMs).map(onGrid),
        interval: fc.constantFrom(300, 500, 1000),
        then: fc.constantFrom('continue', 'close'),
      });
    case 'break':
      return fc.record({
        kind: fc.constant('stream-break'),
        afterChunks: fc.integer({ min: 0, max: 8 }),
        end: fc.constantFrom('close', 'reset', 'error-event'),
      });
    case 'lie':
      // Waits no router should take at their word: none, in the past, three days, or garbage.
      return fc.record({
        kind: fc.constant('status'),
        status: fc.constantFrom(429, 503),
        hint: fc.oneof(
          fc.constantFrom('0s', '-30s', '3d').map((after) => ({ form: 'seconds', after })),
          fc.constant({ form: 'http-date', after: '-1h' }),
          fc.constant({ form: 'seconds', raw: 'in a bit' }),
        ),
      });
  }
}

/** When a fault starts and for how long, inside the load; walls hold to its end. */
function timingArb(kind: WeatherKind, durationMs: number): fc.Arbitrary<{ at: number; for: number }> {
  const minFor = Math.min(WEATHER_BOUNDS.minForMs, durationMs);
  const latestStart = Math.max(0, Math.floor((durationMs - minFor) / GRID));
  return fc
    .record({ start: fc.integer({ min: 0, max: latestStart }), share: fc.integer({ min: 0, max: 100 }) })
    .map(({ start, share }) => {
      const at = start * GRID;
      const room = durationMs - at;
      if (kind === 'wall') return { at, for: room };
      const longest = kind === 'break' ? room : Math.min(WEATHER_BOUNDS.maxForMs, room);
      return { at, for: Math.max(minFor, Math.min(longest, onGrid(minFor + ((longest - minFor) * share) / 100))) };
    });
}

/** How often a matching attempt meets the fault: every one, or every 2nd or 3rd (walls: every one). */
function thinningArb(kind: WeatherKind): fc.Arbitrary<Partial<Match>> {
  if (kind === 'wall') return fc.constant({});
  return fc.constantFrom({}, { everyNth: 2 }, { everyNth: 3 });
}

/** One fault of kind `kind` on `target`, inside the load. */
function faultArb(kind: WeatherKind, target: ProviderDoc, durationMs: number): fc.Arbitrary<SimFaultDoc> {
  return fc.tuple(bodyArb(kind, target.vendor), timingArb(kind, durationMs), scopeArb(target), thinningArb(kind)).map(
    ([body, timing, scope, thinning]) =>
      ({
        id: kind,
        ...timing,
        match: { ...scope, ...thinning, ...(kind === 'break' ? { stream: true } : {}) },
        ...body,
        optional: true,
      }) as unknown as SimFaultDoc,
  );
}

type QuotaDoc = NonNullable<ProviderDoc['quotas']>[number];

/** A tight request quota added to a provider. */
export interface Squeeze {
  provider: string;
  quota: QuotaDoc;
}

/**
 * A quota squeeze: a tight request limit per 10 s or per minute on a provider, counted per key,
 * per org (when its keys name orgs) or for the whole provider, for one model or all; its 429s are
 * the simulator's own, with the vendor's headers and true resets.
 */
function squeezeArb(p: ProviderDoc): fc.Arbitrary<Squeeze> {
  const orgs = p.keys.some((k) => k.org !== undefined);
  return fc
    .record(
      {
        limit: between(WEATHER_BOUNDS.squeezeLimit),
        per: fc.constantFrom('10s', '1m'),
        scope: fc.constantFrom(...(orgs ? (['key', 'org', 'provider'] as const) : (['key', 'provider'] as const))),
        model: fc.constantFrom(...p.models),
      },
      { requiredKeys: ['limit', 'per', 'scope'] },
    )
    .map((q) => ({ provider: p.id, quota: { metric: 'requests', ...q } }));
}

/** The quota squeezes a seed may draw on `targets`: up to `maxSqueezes`. */
export function squeezesArb(targets: readonly ProviderDoc[]): fc.Arbitrary<Squeeze[]> {
  if (targets.length === 0) return fc.constant([]);
  return fc.array(fc.constantFrom(...targets).chain(squeezeArb), { maxLength: WEATHER_BOUNDS.maxSqueezes });
}

/** The faults a seed may draw in `world`: up to `maxFaults`, each named `w<n>-<kind>`. */
export function weatherArb(world: WeatherWorld): fc.Arbitrary<SimFaultDoc[]> {
  if (world.targets.length === 0) return fc.constant([]);
  const kinds = WEATHER_KINDS.filter((k) => k !== 'break' || world.streams);
  const one = fc
    .tuple(fc.constantFrom(...kinds), fc.constantFrom(...world.targets))
    .chain(([kind, target]) => faultArb(kind, target, world.durationMs));
  return fc
    .array(one, { minLength: 0, maxLength: WEATHER_BOUNDS.maxFaults })
    .map((faults) => faults.map((f, i) => ({ ...f, id: `w${i + 1}-${f.id}` })));
}
