import type { Metric } from '../quota/meter.js';
import type { LimitView } from '../quota/quota-set.js';
import type { Hint } from './types.js';

/** Picks the view of `metric` with the shortest (or longest) window. */
export function pickView(
  views: readonly LimitView[],
  metric: Metric,
  prefer: 'shortest' | 'longest' = 'shortest',
): LimitView | undefined {
  let best: LimitView | undefined;
  for (const v of views) {
    if (v.rule.metric !== metric) continue;
    if (!best || (prefer === 'shortest' ? v.rule.windowMs < best.rule.windowMs : v.rule.windowMs > best.rule.windowMs))
      best = v;
  }
  return best;
}

/** Picks the view of `metric` with the fewest units left, ties to the longest reset. */
export function tightestView(views: readonly LimitView[], metrics: readonly Metric[]): LimitView | undefined {
  let best: LimitView | undefined;
  for (const v of views) {
    if (!metrics.includes(v.rule.metric)) continue;
    if (
      !best ||
      v.remaining / v.limit < best.remaining / best.limit ||
      (v.remaining / v.limit === best.remaining / best.limit && v.resetInMs > best.resetInMs)
    )
      best = v;
  }
  return best;
}

/**
 * Makes the reset headers carry a hint: the views of `metric` read empty until the hint ends
 * (or carry the hint's raw text). Used for forced 429s whose hint lives in reset headers.
 */
export function withResetHint(views: readonly LimitView[], metric: Metric, hint: Hint): LimitView[] {
  return views.map((v) =>
    v.rule.metric === metric
      ? {
          ...v,
          remaining: 0,
          resetInMs: Math.max(0, hint.ms),
          ...(hint.raw !== undefined ? { rawReset: hint.raw } : {}),
        }
      : v,
  );
}

const WINDOW_WORDS: Array<[number, string, string]> = [
  [1000, 'sec', 'S'],
  [60_000, 'min', 'M'],
  [3_600_000, 'hour', 'H'],
  [86_400_000, 'day', 'D'],
];

/** Names a window as vendors do in messages: `min`, `day`, or `10s`. */
export function windowWord(windowMs: number): { word: string; letter: string } {
  for (const [ms, word, letter] of WINDOW_WORDS) if (ms === windowMs) return { word, letter };
  return { word: `${windowMs / 1000}s`, letter: '' };
}

/** `requests per min (RPM)`, `tokens per day (TPD)` as OpenAI writes them; Groq spells out `minute`. */
export function dimensionText(metric: Metric, windowMs: number, longWords = false): string {
  const { word: short, letter } = windowWord(windowMs);
  const word = longWords ? (({ sec: 'second', min: 'minute' } as Record<string, string>)[short] ?? short) : short;
  const noun =
    metric === 'requests'
      ? 'requests'
      : metric === 'input-tokens'
        ? 'input tokens'
        : metric === 'output-tokens'
          ? 'output tokens'
          : metric === 'concurrency'
            ? 'concurrent requests'
            : 'tokens';
  const abbr = metric === 'requests' ? 'R' : metric === 'input-tokens' ? 'IT' : metric === 'output-tokens' ? 'OT' : 'T';
  return letter ? `${noun} per ${word} (${abbr}P${letter})` : `${noun} per ${word}`;
}
