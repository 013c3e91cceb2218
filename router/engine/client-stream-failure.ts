import type { StreamFailure } from '../adapters/adapter.js';

/** The failures the router words itself, by code: what the client's error event says for each. */
const OWN: Readonly<Record<string, Omit<StreamFailure, 'code'>>> = {
  deadline_exceeded: { type: 'timeout', message: 'The request deadline passed during the stream.' },
  stream_interrupted: { type: 'upstream_error', message: 'The provider connection failed during the stream.' },
  malformed_stream: { type: 'upstream_error', message: 'The provider sent a malformed stream.' },
  stream_truncated: { type: 'upstream_error', message: 'The provider closed the stream before it finished.' },
};

/**
 * The error event a client gets for a stream that broke after its first content: the router's
 * own words, never the provider's (docs/spec.md OWN-3). A provider's error event is text meant
 * for the router (it names the account's limits, its organisation, its request id); of it only
 * the kind is kept (overloaded, rate-limited, failed), which the inbound API's codec maps to its
 * vendor's error type. The failure as the provider worded it stays the router's, for learning.
 */
export function clientStreamFailure(f: StreamFailure): StreamFailure {
  const own = f.code === null ? undefined : OWN[f.code];
  if (own !== undefined) return { ...own, code: f.code };
  const said = `${f.type} ${f.code ?? ''}`;
  if (/overload|unavailable|capacity/i.test(said))
    return {
      type: 'upstream_error',
      code: 'provider_overloaded',
      message: 'The provider was overloaded during the stream.',
    };
  if (/rate_limit|quota/i.test(said))
    return {
      type: 'upstream_error',
      code: 'provider_rate_limited',
      message: 'The provider hit a rate limit during the stream.',
    };
  return { type: 'upstream_error', code: 'provider_error', message: 'The provider failed during the stream.' };
}
