import type { AttemptOutcome, AttemptRecord } from '../core/types.js';
import type { AttemptResult } from './attempt.js';
import type { TargetRuntime } from './target.js';

/** One attempt as clients and the state view see it: a stream's attempt ends at its first content. */
export function attemptRecord(
  target: TargetRuntime,
  startedAt: number,
  result: AttemptResult,
  outcome: AttemptOutcome,
): AttemptRecord {
  const endedAt = result.kind === 'stream' ? result.firstContentAt : result.endedAt;
  const waitMs = 'waitMs' in outcome ? outcome.waitMs : undefined;
  // Members in the order clients see them; the optional ones set when present, with no object
  // spread per attempt.
  const record: AttemptRecord = {
    target: target.id,
    provider: target.provider,
    key: target.key,
    model: target.model,
    startedAt,
    endedAt,
    outcome: outcome.kind,
  };
  if ('status' in outcome) record.status = outcome.status;
  if (waitMs !== undefined) record.waitMs = waitMs;
  return record;
}
