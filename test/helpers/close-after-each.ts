import { afterEach } from 'vitest';

/** Something a test starts and must stop: a simulator, a router, a router server. */
export interface Closable {
  close(): Promise<unknown>;
}

/**
 * After each test of the calling file, closes what `open()` names then, in that order (the server
 * before the router before the simulator), skipping what is not started and what an earlier test
 * already closed: files keep these in variables that a later test need not set again.
 */
export function closeAfterEach(open: () => ReadonlyArray<Closable | undefined>): void {
  const closed = new WeakSet<Closable>();
  afterEach(async () => {
    for (const c of open()) {
      if (c === undefined || closed.has(c)) continue;
      closed.add(c);
      await c.close();
    }
  });
}
