/** Half-open time intervals [start, end), kept sorted and disjoint. */
export type Intervals = Array<[number, number]>;

/** Sorts and merges overlapping intervals. */
export function union(list: Intervals): Intervals {
  const sorted = list.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  const out: Intervals = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** The times covered by both lists. */
export function intersect(x: Intervals, y: Intervals): Intervals {
  const out: Intervals = [];
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    const a = Math.max(x[i]![0], y[j]![0]);
    const b = Math.min(x[i]![1], y[j]![1]);
    if (b > a) out.push([a, b]);
    if (x[i]![1] < y[j]![1]) i++;
    else j++;
  }
  return out;
}

/** Whether [a, b) lies entirely inside one of the intervals. */
export function covers(list: Intervals, a: number, b: number): boolean {
  return list.some(([s, e]) => s <= a && b <= e);
}
