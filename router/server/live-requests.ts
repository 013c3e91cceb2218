import type { Cancel } from '../core/cancel.js';

/** The requests a server is answering (by their cancellations), for a drain on close. */
export class LiveRequests {
  private readonly live = new Set<Cancel>();
  private drained: (() => void) | undefined;

  get size(): number {
    return this.live.size;
  }

  add(request: Cancel): void {
    this.live.add(request);
  }

  /** The request is answered; the last one out ends a drain. */
  delete(request: Cancel): void {
    this.live.delete(request);
    if (this.live.size === 0) this.drained?.();
  }

  /** Resolves once no request is being answered. */
  whenDrained(): Promise<void> {
    return this.live.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (this.drained = resolve));
  }

  /** Cuts every request still being answered. */
  abortAll(reason: unknown): void {
    for (const a of this.live) a.abort(reason);
  }
}
