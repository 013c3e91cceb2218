import { createRng, deriveSeed } from '../../core/rng.js';
import type { EncodeContext, Route, SimRequest } from '../../vendors/types.js';
import { randomHex } from '../../vendors/wire-format.js';
import { findCorrelationId } from '../correlation.js';
import { Keyring } from '../keyring.js';
import type { ProviderRuntime } from '../provider-runtime.js';
import { staticReply, type Reply } from '../reply.js';
import { NO_VIEWS, refuse, type Attempt, type Refused } from './attempt.js';

/** What routing reads of the engine: its providers and credentials, and the ledger whose size seeds each request. */
export interface RouteTable {
  readonly providers: readonly ProviderRuntime[];
  readonly byId: ReadonlyMap<string, ProviderRuntime>;
  readonly keyring: Keyring;
  readonly ledger: { readonly size: number };
  readonly seed: number;
  /** Lower-case names of the headers that may carry a correlation id. */
  readonly correlationHeaders: readonly string[];
}

const EMPTY_QUERY = new URLSearchParams();

/**
 * The first stage: finds the provider named by the path's first segment and the route its vendor
 * gives the rest, and opens the attempt. A path under no provider gets a bare 404 that nothing
 * records (no vendor to speak for it); a path the vendor does not serve is refused in its shape.
 */
export function route(table: RouteTable, req: SimRequest, now: number): Reply | Refused | Attempt {
  const q = req.url.indexOf('?');
  const path = q < 0 ? req.url : req.url.slice(0, q);
  const slash = path.indexOf('/', 1);
  const providerId = slash < 0 ? path.slice(1) : path.slice(1, slash);
  const provider = table.byId.get(providerId);
  if (!provider) {
    const known = table.providers.map((p) => `/${p.id}`).join(', ');
    return staticReply(
      404,
      JSON.stringify({
        error: {
          message: `Failed to route ${req.method} ${path}: no simulated provider "${providerId}". Providers are served under ${known}.`,
          type: 'not_found',
        },
      }),
    );
  }
  const rest = slash < 0 ? '/' : path.slice(slash);
  const query = q < 0 ? EMPTY_QUERY : new URLSearchParams(req.url.slice(q + 1));
  let found: Route;
  try {
    found = provider.profile.route(req.method, rest, query);
  } catch {
    // A malformed %-escape in a path segment (a model or deployment name): no such path.
    found = { kind: 'not-found', method: req.method, path: rest };
  }
  // Not an attempt: the SDK sends it unasked, before any work, and the ledger judges work.
  if (found.kind === 'warm-up') return staticReply(found.status, found.body);
  const attempt = openAttempt(table, req, now, provider, found, query);
  if (found.kind === 'not-found')
    return refuse(attempt, { kind: 'not_found', message: `Invalid URL (${req.method} ${rest})` });
  return attempt;
}

/**
 * Makes the attempt: its seeded stream, its request id and what the ledger records. The key is
 * identified here but judged by the next stage: the ledger names whose key even a refused request
 * carried, and every credential it carried besides.
 */
function openAttempt(
  table: RouteTable,
  req: SimRequest,
  now: number,
  provider: ProviderRuntime,
  route: Route,
  query: URLSearchParams,
): Attempt {
  const chat = route.kind === 'chat' ? route : undefined;
  const profile = (chat?.api && provider.apis.get(chat.api)) || provider.profile;
  const rng = createRng(deriveSeed(table.seed, 1, table.ledger.size));
  const credential = profile.credential(req, query);
  const key = table.keyring.match(credential, provider.index);
  const retryHeader = req.headers['x-stainless-retry-count'];
  const retry = retryHeader === undefined ? null : Number.parseInt(retryHeader, 10);
  const ctx: EncodeContext = {
    now,
    rng,
    requestId: randomHex(rng, 32),
    providerId: provider.id,
    org: key.kind === 'own' ? key.owner.org : 'unknown',
    model: chat ? (chat.model ?? '') : '',
    options: provider.options,
    meta: chat ? chat.meta : undefined,
  };
  const owner = key.kind === 'own' || key.kind === 'foreign' ? key.owner : undefined;
  return {
    req,
    provider,
    profile,
    route,
    credential,
    key,
    ctx,
    start: {
      arrivalAt: now,
      provider: provider.id,
      vendor: profile.id,
      key: Keyring.label(key),
      endpoint: chat ? (chat.api ?? 'chat') : route.kind === 'models' ? 'models' : 'other',
      model: chat ? (chat.model ?? null) : null,
      correlationId: findCorrelationId(req.headers, table.correlationHeaders, undefined),
      sdkRetryCount: retry !== null && Number.isFinite(retry) ? retry : null,
      stream: chat?.stream === true,
      carried: table.keyring.scan(req.headers, query, req.body, provider.index, owner),
    },
    tokensIn: 0,
    faults: [],
    owner: undefined,
    body: undefined,
    chat: undefined,
    decision: undefined,
    lookup: undefined,
    uncounted: 0,
    costs: undefined,
    ticket: undefined,
    emptyForMs: undefined,
    cache: undefined,
    refusal: undefined,
    views: NO_VIEWS,
    shown: NO_VIEWS,
    degraded: false,
  };
}
