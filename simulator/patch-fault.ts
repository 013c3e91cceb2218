import type { ZodError } from 'zod';
import { FaultSchema, type FaultSpec } from './scenario/schema.js';
import { formatPath } from './scenario/issue.js';
import { expandUnions } from './scenario/parse-scenario.js';

/** A fault's place on the timeline (epoch ms; `endAt` Infinity: until removed). */
export interface FaultWindow {
  startAt: number;
  endAt: number;
}

/** What a patch does to a fault: its new spec, maybe a new window, maybe on or off. */
export type FaultPatch =
  { ok: true; spec: FaultSpec; window?: FaultWindow; enabled?: boolean } | { ok: false; issues: string[] };

/** The schema's issues as `path: message` lines, one per problem (unions expanded). */
export function faultIssues(error: ZodError): string[] {
  return expandUnions(error.issues).map(
    (i) => `${formatPath(i.path as Array<string | number>)}: ${i.message.replace(/^Invalid input: /, '')}`,
  );
}

/**
 * Applies `patch` (fields of a fault, as in a scenario, plus `enabled`) to a fault on the timeline,
 * as Toxiproxy updates a toxic: the fields given replace the spec's (`match` as a whole), and the
 * result is validated by the same schema as a new fault. `at` re-places the fault from `now`;
 * `for` alone keeps its start and changes its length. The id cannot change.
 */
export function patchFault(current: { spec: FaultSpec } & FaultWindow, patch: unknown, now: number): FaultPatch {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
    return { ok: false, issues: ['(root): expected an object of the fields to change, e.g. { "status": 503 }'] };
  const { enabled, ...fields } = patch as Record<string, unknown>;
  if (enabled !== undefined && typeof enabled !== 'boolean')
    return { ok: false, issues: ['enabled: expected true or false'] };
  if ('id' in fields && fields.id !== current.spec.id)
    return { ok: false, issues: [`id: a fault keeps its id ("${current.spec.id}"); remove it and add another`] };
  const parsed = FaultSchema.safeParse({ ...current.spec, ...fields });
  if (!parsed.success) return { ok: false, issues: faultIssues(parsed.error) };
  const spec = parsed.data;
  const length = (startAt: number) => (spec.for === undefined ? Infinity : startAt + spec.for);
  const window =
    'at' in fields
      ? { startAt: now + spec.at, endAt: length(now + spec.at) }
      : 'for' in fields
        ? { startAt: current.startAt, endAt: length(current.startAt) }
        : undefined;
  return { ok: true, spec, ...(window ? { window } : {}), ...(enabled === undefined ? {} : { enabled }) };
}
