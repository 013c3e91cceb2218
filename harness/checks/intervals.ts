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

/**
 * `union` of the intervals [starts[i], ends[i]) for i below `n`, given as columns. The starts and
 * the ends are sorted apart (a typed array's own sort, not a comparator called for each of a day's
 * three million spans) and swept: a time is covered while more intervals have started than ended,
 * a start counted before an end at the same time, so that touching intervals merge as in `union`.
 */
export function unionOfColumns(starts: Float64Array, ends: Float64Array, n: number): Intervals {
  let kept = 0;
  for (let i = 0; i < n; i++) if (ends[i]! > starts[i]!) kept++;
  const from = new Float64Array(kept);
  const to = new Float64Array(kept);
  for (let i = 0, k = 0; i < n; i++)
    if (ends[i]! > starts[i]!) {
      from[k] = starts[i]!;
      to[k++] = ends[i]!;
    }
  from.sort();
  to.sort();
  const out: Intervals = [];
  let open = 0;
  let begin = 0;
  let i = 0;
  // The j-th smallest end is above the j-th smallest start: `open` never falls below zero.
  for (let j = 0; j < kept; j++) {
    while (i < kept && from[i]! <= to[j]!) {
      if (open++ === 0) begin = from[i]!;
      i++;
    }
    if (--open === 0) out.push([begin, to[j]!]);
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

/** The interval containing `t` (binary search over sorted, disjoint intervals), if any. */
export function containing(list: Intervals, t: number): [number, number] | undefined {
  let lo = 0;
  let hi = list.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]![0] <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  const hit = found >= 0 ? list[found]! : undefined;
  return hit && t < hit[1] ? hit : undefined;
}

/** Whether [a, b) lies entirely inside one of the intervals. */
export function covers(list: Intervals, a: number, b: number): boolean {
  const hit = containing(list, a);
  return hit !== undefined && b <= hit[1];
}

/** Whether some interval of the sorted, disjoint list overlaps [a, b). */
export function overlaps(list: Intervals, a: number, b: number): boolean {
  if (b <= a) return false;
  let lo = 0;
  let hi = list.length;
  // The first interval ending after `a`.
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]![1] <= a) lo = mid + 1;
    else hi = mid;
  }
  return lo < list.length && list[lo]![0] < b;
}
