/**
 * One cycle per tangle (strongly connected component) of a directed graph: the shortest way from
 * the tangle's first node (in sort order) back to itself, so a report names the same cycle every run.
 */
export function graphCycles(next: ReadonlyMap<string, readonly string[]>): string[][] {
  return tangles(next).map((tangle) => shortestCycle(next, tangle));
}

/** Tarjan's strongly connected components that hold a cycle (two nodes or more, or one with an edge to itself). */
function tangles(next: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) visit(w);
      if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, low.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const tangle: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      tangle.push(w);
    } while (w !== v);
    if (tangle.length > 1 || next.get(v)?.includes(v)) found.push(tangle.sort());
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/** The shortest path from a tangle's first node back to itself, by breadth-first search inside the tangle. */
function shortestCycle(next: ReadonlyMap<string, readonly string[]>, tangle: readonly string[]): string[] {
  const start = tangle[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (const v of queue) {
    for (const w of next.get(v) ?? []) {
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        return [...path, start];
      }
      if (tangle.includes(w) && !cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  throw new Error(`Failed to close a cycle through ${start}: not a tangle.`);
}
