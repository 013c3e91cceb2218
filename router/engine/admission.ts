import type { Shed } from '../core/admit-waiter.js';
import type { AttemptRecord } from '../core/types.js';
import { failWith, type RouteResult } from './route-result.js';
import type { Wakeup } from './wakeup.js';

/** Admission as the state view and metrics show it. */
export interface AdmissionView {
  inFlight: number;
  waiting: number;
  waitingHighWater: number;
  shed: Record<string, number>;
}

/**
 * The router's admission books: requests being routed, requests waiting for capacity (by the model
 * name they asked for) and the most that waited at once, and requests shed by reason.
 */
export class Admission {
  /** Requests being routed now. */
  inFlight = 0;
  private waitingHighWater = 0;
  private readonly waitingFor = new Map<string, number>();
  private readonly shed = new Map<string, number>();

  constructor(private readonly wakeup: Wakeup) {}

  /** Requests already waiting for capacity for `model`. */
  ahead(model: string): number {
    return this.waitingFor.get(model) ?? 0;
  }

  /** Counts a request as waiting for `model` as it begins to wait; `stopWaiting` however the wait ends. */
  startWaiting(model: string): void {
    this.waitingFor.set(model, (this.waitingFor.get(model) ?? 0) + 1);
    this.waitingHighWater = Math.max(this.waitingHighWater, this.wakeup.waiting + 1);
  }

  stopWaiting(model: string): void {
    const left = this.waitingFor.get(model)! - 1;
    if (left === 0) this.waitingFor.delete(model);
    else this.waitingFor.set(model, left);
  }

  /** A 503 with Retry-After given instead of holding a request, counted by reason. */
  private shedNow(reason: string, message: string, retryInMs: number, attempts: AttemptRecord[] = []): RouteResult {
    this.shed.set(reason, (this.shed.get(reason) ?? 0) + 1);
    const retryAfter = String(Math.max(1, Math.ceil(retryInMs / 1000)));
    return failWith(503, 'router_overloaded', 'service_unavailable', message, attempts, { 'retry-after': retryAfter });
  }

  /** The 503 for a request that finds `admission.maxInFlight` requests routed already. */
  shedInFlight(): RouteResult {
    const message = `The router is already routing ${this.inFlight} requests (admission.maxInFlight).`;
    return this.shedNow('max_in_flight', message, 1);
  }

  /** The 503 for a request `decideNext` shed rather than held. */
  shedWaiter(shed: Shed, attempts: AttemptRecord[]): RouteResult {
    const message =
      shed.reason === 'max_waiting'
        ? `The router is already holding ${shed.waiting} requests for capacity (admission.maxWaiting).`
        : `No capacity before the deadline: the ${Math.floor(shed.expected)} requests the providers are expected to take by then are spoken for by ${shed.ahead} already waiting.`;
    return this.shedNow(shed.reason, message, shed.retryInMs, attempts);
  }

  /** Requests being routed and waiting now, the most that waited at once, and those shed by reason. */
  view(): AdmissionView {
    return {
      inFlight: this.inFlight,
      waiting: this.wakeup.waiting,
      waitingHighWater: this.waitingHighWater,
      shed: Object.fromEntries(this.shed),
    };
  }
}
