/**
 * Runs at most `n` of the tasks given to it at once, the others waiting their turn: for concurrent
 * tests whose runs share one event loop, so that the harness's own lag stays small.
 */
export function limit(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (active < n) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      // Hand the slot to the next task waiting, or free it.
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
