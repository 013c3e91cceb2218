import { providerMessage } from './provider-message.js';
import type { Signals } from './signals.js';
import type { AttemptOutcome } from './types.js';

const MODEL_MISSING =
  /model[^"]*(not exist|not found|does not exist|invalid)|invalid model|not a valid model|Model Not Exist|DeploymentNotFound|is not found for API version/i;
const KEY_INVALID = /API_KEY_INVALID|API key not valid|Incorrect API key provided/;
// OpenAI (and Groq) name the organisation whose limit was reached: "Rate limit reached for
// gpt-4o in organization org-… on requests per min (RPM)"; Anthropic: "This request would exceed
// the rate limit for your organization (…) of 50 requests per minute".
const ORG_LIMIT = /Rate limit reached for [^"]*? in organization |exceed the rate limit for your organization/;

/**
 * Classifies an upstream answer as a value. A 429 is a rate limit with a wait, unless the
 * response names a billing or daily wall (then it is "quota exhausted", not worth retrying for
 * hours); 529, 503 and bodies saying "overloaded" are overload; our own key being refused is an
 * auth error (never the caller's fault); a 4xx about the request itself is the caller's.
 */
export function classifyResponse(status: number, signals: Signals, bodyText: string): AttemptOutcome {
  const waitMs = signals.waitMs;
  if (status >= 200 && status < 300) return { kind: 'ok', status };
  // A redirect or an informational status is no answer a client can use: the provider (or what
  // stands in front of it) misbehaved, and its status must never reach the client.
  if (status < 200 || (status >= 300 && status < 400)) return { kind: 'server_error', status };
  if (status === 429) {
    return signals.quotaExhausted
      ? { kind: 'quota_exhausted', status, waitMs }
      : ORG_LIMIT.test(bodyText)
        ? { kind: 'rate_limited', status, waitMs, orgWide: true }
        : { kind: 'rate_limited', status, waitMs };
  }
  // A wall named in the body wins over the status (xAI's credits as 403, Bedrock's quota as 400).
  if (status === 402 || (signals.quotaExhausted && status >= 400 && status < 500))
    return { kind: 'quota_exhausted', status, waitMs };
  if (status === 529 || status === 503 || (status >= 500 && signals.overloaded))
    return { kind: 'overloaded', status, waitMs };
  // 424: the model behind the service failed (Bedrock's ModelErrorException).
  if (status >= 500 || status === 408 || status === 424) return { kind: 'server_error', status, waitMs };
  if (status === 401 || status === 403 || (status === 400 && KEY_INVALID.test(bodyText)))
    return { kind: 'auth_error', status };
  if (status === 404 || ((status === 400 || status === 422) && MODEL_MISSING.test(bodyText)))
    return { kind: 'not_found', status };
  return { kind: 'client_error', status, message: providerMessage(bodyText) };
}
