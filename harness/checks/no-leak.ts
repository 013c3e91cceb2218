import { upstreamMarks, type UpstreamMark } from '../../simulator/index.js';
import type { ClientOutcome, ErrorAnswer } from '../load/client-outcome.js';
import type { RunScenario } from '../scenario/schema.js';
import { count, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';

/** A run of a key this long, anywhere, is a piece of it (a prefix such as `sk-ant-api03-` is shorter). */
const KEY_PIECE_CHARS = 14;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A vendor's request id as the simulated vendors write it: `req_…`, or 32 hex digits. */
const REQUEST_ID = /\breq_[0-9A-Za-z]{16,}|(?<![0-9A-Fa-f])[0-9a-f]{32}(?![0-9A-Fa-f])/;

/**
 * Finds what of the providers' insides a text shows: a key or a piece of one (a run of
 * `KEY_PIECE_CHARS`, or its last four characters after a mask such as `sk-…1234` or `****1234`),
 * an organisation id, a vendor's error text, an upstream URL (the simulator's provider roots) or
 * an upstream request id. Returns what it found, in words, or null.
 */
export function leakFinder(scenario: RunScenario): (text: string) => string | null {
  const marks = upstreamMarks(scenario.providers, scenario.faults);
  const keys = marks.filter((m) => m.kind === 'key' && m.value.length >= 8);
  const masked = keys.map((m) => ({
    m,
    re: new RegExp(`(?:…|[*.•xX]{2,}|ending in )${escape(m.value.slice(-4))}(?![0-9A-Za-z])`),
  }));
  const others = marks.filter((m) => m.kind !== 'key');
  const ids = scenario.providers.map((p) => escape(p.id)).join('|');
  const upstreamUrl = new RegExp(`https?://[^\\s"'<>]*?/(?:${ids})(?=[/"'\\s?]|$)|simulator\\.simulated`);
  const said = (m: UpstreamMark) => (m.provider === '*' ? 'a provider' : m.provider);
  return (text) => {
    for (const m of keys) {
      if (text.includes(m.value)) return `${said(m)}'s key, whole`;
      for (let i = 0; i + KEY_PIECE_CHARS <= m.value.length; i++)
        if (text.includes(m.value.slice(i, i + KEY_PIECE_CHARS)))
          return `a piece of ${said(m)}'s key (${KEY_PIECE_CHARS}+ characters of it)`;
    }
    for (const { m, re } of masked) if (re.test(text)) return `${said(m)}'s key's last four characters, masked`;
    for (const m of others)
      if (text.includes(m.value))
        return `${said(m)}'s ${m.kind === 'org' ? 'organisation id' : 'own error text'} "${m.value.slice(0, 60)}"`;
    const url = upstreamUrl.exec(text);
    if (url) return `an upstream URL (${url[0]})`;
    const id = REQUEST_ID.exec(text);
    if (id) return `an upstream request id (${id[0]})`;
    return null;
  };
}

/** An error answer as one text: its headers (`name: value` lines) and its body. */
const answerText = (a: ErrorAnswer) =>
  `${Object.entries(a.headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n')}\n\n${a.body}`;

/** What the router said in its own words when a request failed: an error answer, or the error event that ended a stream. */
function ownErrorText(o: ClientOutcome): { text: string; what: string } | undefined {
  if (o.status >= 400 && o.errorAnswer !== undefined)
    return { text: answerText(o.errorAnswer), what: `${o.status} answer` };
  if (o.streamEnd === 'error-event' && o.detail) return { text: o.detail, what: "stream's error event" };
  return undefined;
}

/**
 * Nothing of the providers' insides reaches a client through the router's own error answers
 * or the error events it ends broken streams with: no key or piece of one, no organisation id,
 * no provider's error text, no upstream URL or request id (see `leakFinder`), in a header or
 * the body.
 */
export function checkNoLeak({ outcomes, scenario }: CheckInput): CheckResult {
  const base = {
    id: 'no-leak' as const,
    title: 'Nothing upstream-internal reaches the client',
    meaning:
      "The router's error answers and in-stream error events never show a provider key (or part of one), an organisation id, a provider's own error text, an upstream URL or an upstream request id.",
    unit: 'answers',
  };
  const find = leakFinder(scenario);
  // The router's error answers repeat: each distinct one is read once.
  const seen = new Map<string, string | null>();
  const evidence: Evidence[] = [];
  let judged = 0;
  let events = 0;
  let leaks = 0;
  for (const o of outcomes) {
    const said = ownErrorText(o);
    if (said === undefined) continue;
    judged++;
    if (o.status < 400) events++;
    let found = seen.get(said.text);
    if (found === undefined) seen.set(said.text, (found = find(said.text)));
    if (found === null) continue;
    leaks++;
    if (evidence.length < MAX_EVIDENCE)
      evidence.push({ at: o.endAt, correlationId: o.id, model: o.model, detail: `${said.what} shows ${found}` });
  }
  const of = `${count(judged, 'error answer')}${events > 0 ? ` (${events} of them in-stream error events)` : ''}`;
  if (judged === 0)
    return {
      ...base,
      verdict: 'skip',
      figure: 'no error answer or in-stream error event of the router was recorded to read',
      value: null,
      violations: 0,
      evidence: [],
    };
  return {
    ...base,
    verdict: leaks === 0 ? 'pass' : 'fail',
    figure:
      leaks === 0
        ? `none of ${of} shows anything upstream-internal`
        : `${leaks} of ${of} show something upstream-internal`,
    value: leaks,
    violations: leaks,
    evidence,
    details: { judged, streamErrorEvents: events, distinct: seen.size },
  };
}
