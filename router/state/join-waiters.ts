/** Callers waiting for a store to join its fleet, each answered once: joined, or not (in time). */
export class JoinWaiters {
  private waiters: Array<(ok: boolean) => void> = [];

  /** Resolves true when the join succeeds, false when it fails or `timeoutMs` passes first. */
  wait(timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve(false);
      }, timeoutMs);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        resolve(ok);
      };
      this.waiters.push(done);
    });
  }

  /** Answers everyone waiting now. */
  settle(ok: boolean): void {
    for (const resolve of this.waiters) resolve(ok);
    this.waiters = [];
  }
}
