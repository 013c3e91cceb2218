import type { LedgerRow } from '../../simulator/index.js';
import type { ClientOutcome } from '../load/client-outcome.js';
import type { Clause } from '../spec/clauses.js';

/** What the clause table reads of a check's result (a `CheckResult`, or a check of a saved report.json). */
export interface JudgedCheck {
  id: string;
  verdict: string;
  figure: string;
  evidence: ReadonlyArray<{ correlationId?: string | null; detail: string }>;
}

/** Each clause of docs/spec.md and the pack scenario its `- Forced by:` line names (`01-steady-state`). */
export function forcingScenarios(specText: string): Map<string, string> {
  const out = new Map<string, string>();
  const heads = [...specText.matchAll(/^### ([A-Z]+-\d+)\. .+$/gm)];
  heads.forEach((h, i) => {
    const body = specText.slice(h.index + h[0].length, heads[i + 1]?.index ?? specText.length).split(/^## /m)[0]!;
    const forced = /^- Forced by: `([^`]+)`\s*$/m.exec(body)?.[1];
    if (forced) out.set(h[1]!, forced);
  });
  return out;
}

/** A clause's verdict on one peer: its check on the clause's forcing scenario, in every run. */
export interface ClauseVerdict {
  clause: Clause;
  /** The forcing scenario's name, or null when docs/spec.md names none. */
  scenario: string | null;
  /** One verdict per run (`not run` when the scenario was not played, `not judged` when the check did not run there). */
  verdicts: string[];
  /** Run 1's result of the check, when it ran. */
  first?: JudgedCheck;
}

/**
 * The clause table's rows: for each clause (spec order), its check's verdict on its forcing
 * scenario. `results` is keyed by scenario name (the file name without `.yaml`), one list of
 * checks per run.
 */
export function clauseVerdicts(
  clauses: readonly Clause[],
  forced: ReadonlyMap<string, string>,
  results: ReadonlyMap<string, ReadonlyArray<readonly JudgedCheck[]>>,
): ClauseVerdict[] {
  return clauses.map((clause) => {
    const scenario = forced.get(clause.id) ?? null;
    const runs = scenario === null ? undefined : results.get(scenario);
    if (!runs) return { clause, scenario, verdicts: ['not run'] };
    const found = runs.map((checks) => checks.find((c) => c.id === clause.check));
    return {
      clause,
      scenario,
      verdicts: found.map((c) => c?.verdict ?? 'not judged'),
      ...(found[0] ? { first: found[0] } : {}),
    };
  });
}

const ms = (n: number) => `${Math.round(n)} ms`;

/**
 * What the ledger holds for one correlation id, one line per attempt, as read from
 * `ledger.jsonl` (times from the client's send, from `outcomes.jsonl`): provider, key, model,
 * status and error type, the wait it announced, how the attempt ended and what it produced; then
 * what the client got (usage and characters of a 200).
 */
export function ledgerLines(
  id: string,
  rows: readonly LedgerRow[],
  outcome: ClientOutcome | undefined,
  max = 6,
): string[] {
  const mine = rows.filter((r) => r.correlationId === id);
  const t0 = outcome?.sentAt ?? mine[0]?.arrivalAt ?? 0;
  const lines = mine.slice(0, max).map((r) => {
    const hint = r.hintMs !== null ? `, announced a ${ms(r.hintMs)} wait (${r.hintForm ?? 'hint'})` : '';
    const faults = r.faults.length ? `, fault ${r.faults.join('+')}` : '';
    const made =
      r.status === 200
        ? `, ${r.tokensIn}+${r.tokensOut} tokens${r.contentChars !== null ? `, ${r.contentChars} chars` : ''}`
        : '';
    return `ledger #${r.seq}: +${ms(r.arrivalAt - t0)} ${r.provider}/${r.model} key ${r.key}${r.stream ? ' stream' : ''} → ${r.status}${r.errorType ? ` ${r.errorType}` : ''}${hint}${faults}, ended ${r.end}${made}`;
  });
  if (mine.length > max) lines.push(`… ${mine.length - max} more attempts`);
  if (mine.length === 0) lines.push('ledger: no attempt carries this correlation id');
  if (outcome) {
    const got =
      outcome.status === 200
        ? `, usage ${outcome.usage ? `${outcome.usage.prompt}+${outcome.usage.completion}` : 'none'}${outcome.contentChars !== undefined ? `, ${outcome.contentChars} chars` : ''}`
        : '';
    lines.push(
      `client: ${outcome.status || 'no answer'}${outcome.error ? ` (${outcome.error})` : ''}${outcome.streamEnd ? `, stream ended ${outcome.streamEnd}` : ''} after ${ms(outcome.endAt - outcome.sentAt)}${got}`,
    );
  }
  return lines;
}
