import type { Scenario } from '../scenario/schema.js';
import { stableUuid } from './wire-format.js';

/** Something of a provider's that only the router may see: a client that reads it learns the router's insides. */
export interface UpstreamMark {
  provider: string;
  /** `key`: a key's value; `org`: an organisation id as a vendor writes it; `error-text`: words of a vendor's error. */
  kind: 'key' | 'org' | 'error-text';
  value: string;
}

/**
 * Words of the simulated vendors' capacity and server errors (rate limits, quotas, overloads,
 * internal errors), as their encoders write them: text meant for the router, which a router that
 * copies a provider's error into its own answer hands its clients. A client's own mistakes (a
 * bad parameter) are left out: a router may well pass those on.
 */
export const VENDOR_ERROR_TEXT: readonly string[] = [
  'Rate limit reached for',
  'would exceed the rate limit for your organization',
  "would exceed your organization's ramp limit", // anthropic.ts
  'You exceeded your current quota, please check your plan and billing details',
  'The server had an error while processing your request',
  'of your current OpenAI S0 pricing tier',
  'The service is temporarily unable to process your request',
  'The model is overloaded. Please try again later',
  'Service tier capacity exceeded for this model',
  'The server is overloaded or not ready yet',
  'Model has timed out in processing the request',
  'The server encountered an internal error while processing the request',
  'No allowed providers are available for the selected model',
  'Insufficient credits. Add more using',
  'Credit limit exceeded. Please add credits',
];

/**
 * The forms in which a vendor's encoder writes an organisation id: Groq `org_…` (its rate-limit
 * text), Anthropic and xAI a UUID (`anthropic-organization-id`, the team id), Google's and AWS's
 * none, and OpenAI and the OpenAI-shaped rest `org-…` (`openai-organization`, OpenAI's text).
 */
function orgForms(vendor: string, org: string): string[] {
  if (vendor === 'groq') return [`org_${org}`];
  if (vendor === 'anthropic' || vendor === 'xai') return [stableUuid(org)];
  if (vendor === 'gemini' || vendor === 'vertex-ai' || vendor === 'bedrock') return [];
  return [`org-${org}`];
}

/**
 * What of the scenario's providers must never reach a client: each key's value, each
 * organisation's id in the form its vendor writes it (`orgForms`, so a leak names the provider it
 * came from), then, for any provider, the forms its vendor does not write (a router may reword
 * one: still a leak, of "a provider"), the vendors' own error text and the scenario's own fault
 * messages. Keys read from the environment have no value here.
 */
export function upstreamMarks(providers: Scenario['providers'], faults: Scenario['faults'] = []): UpstreamMark[] {
  const out: UpstreamMark[] = [];
  const has = (value: string) => out.some((m) => m.kind === 'org' && m.value === value);
  for (const p of providers) {
    for (const k of p.keys) {
      if (k.value !== undefined) out.push({ provider: p.id, kind: 'key', value: k.value });
      for (const value of orgForms(p.vendor, k.org ?? k.id))
        if (!out.some((m) => m.kind === 'org' && m.provider === p.id && m.value === value))
          out.push({ provider: p.id, kind: 'org', value });
    }
  }
  for (const p of providers)
    for (const k of p.keys) {
      const org = k.org ?? k.id;
      for (const value of [`org-${org}`, `org_${org}`, stableUuid(org)])
        if (!has(value)) out.push({ provider: '*', kind: 'org', value });
    }
  for (const value of VENDOR_ERROR_TEXT) out.push({ provider: '*', kind: 'error-text', value });
  for (const f of faults)
    if (f.kind === 'status' && f.message !== undefined && f.message.length >= 12)
      out.push({ provider: [f.match.provider ?? '*'].flat().join(','), kind: 'error-text', value: f.message });
  return out;
}
