/** @module throttlelab reference router: capacity-aware, deadline-bounded failover across LLM providers. */
export { Router, type RouterDeps, type RouteOptions, type RouteResult } from './router.js';
export { readDuration } from './config/duration.js';
export { startRouterServer, type RouterServer, type RouterServerOptions } from './server/http-server.js';
export { parseRouterConfig, type ConfigIssue, type ParseConfigResult } from './config/parse-config.js';
export { RouterConfigSchema, type RouterConfig, type ProviderConfig } from './config/schema.js';
export type { Clock } from './core/clock.js';
export { systemClock } from './engine/system-clock.js';
export { createFakeClock, type FakeClock } from './core/fake-clock.js';
export { createRng, type Rng } from './core/rng.js';
export { RouterError, isRouterError, type RouterErrorCode } from './core/errors.js';
export type { AttemptRecord, AttemptOutcome, ChatRequest, VendorKind } from './core/types.js';
export { createUndiciTransport, type UndiciTransportOptions } from './transport/undici-transport.js';
export type { Transport, HttpResponse } from './transport/transport.js';
export type { HttpCall } from './adapters/adapter.js';
export { createMemoryStore } from './state/memory-store.js';
export type { StateStore } from './core/state-store.js';
export { decodeSignals } from './signals/decode.js';
export type { Signals } from './core/signals.js';
