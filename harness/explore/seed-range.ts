/** At most this many seeds in one range: a typo such as `1..1000000000` is refused, not run for days. */
export const MAX_SEEDS = 100_000;
const MAX_SEED = 4294967295;

/** A parsed seed list, or why the text is not one. */
export type SeedRangeResult = { ok: true; seeds: number[] } | { ok: false; message: string };

function seedOf(part: string): number | string {
  if (!/^\d+$/.test(part)) return `"${part}" is not a seed (an integer from 0 to ${MAX_SEED})`;
  const n = Number(part);
  if (n > MAX_SEED) return `${part} is past the largest seed, ${MAX_SEED}`;
  return n;
}

/**
 * Parses a seed list: a range `1..100` (both ends included), a list `1,5,9`, or both (`1..10,42`).
 * Seeds come back in the order given, each once.
 */
export function parseSeedRange(text: string): SeedRangeResult {
  const seeds: number[] = [];
  const seen = new Set<number>();
  const parts = text.split(',').map((p) => p.trim());
  for (const part of parts) {
    if (part === '') return { ok: false, message: `expected seeds such as 1..100 or 1,5,9, got "${text}"` };
    const range = /^(.*)\.\.(.*)$/.exec(part);
    const ends = range ? [range[1]!.trim(), range[2]!.trim()] : [part];
    const values = ends.map(seedOf);
    const bad = values.find((v): v is string => typeof v === 'string');
    if (bad !== undefined) return { ok: false, message: bad };
    const [from, to = from] = values as number[];
    if (to! < from!) return { ok: false, message: `${part} runs backwards; write ${to}..${from}` };
    if (seen.size + (to! - from! + 1) > MAX_SEEDS)
      return { ok: false, message: `${text} names more than ${MAX_SEEDS} seeds` };
    for (let s = from!; s <= to!; s++)
      if (!seen.has(s)) {
        seen.add(s);
        seeds.push(s);
      }
  }
  return { ok: true, seeds };
}

/** Writes seeds back compactly, runs of consecutive seeds as ranges: `1..100`, `1..3,9`. */
export function formatSeedRange(seeds: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < seeds.length;) {
    let j = i;
    while (j + 1 < seeds.length && seeds[j + 1] === seeds[j]! + 1) j++;
    parts.push(j === i ? `${seeds[i]}` : j === i + 1 ? `${seeds[i]},${seeds[j]}` : `${seeds[i]}..${seeds[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}
