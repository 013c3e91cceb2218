import type { HintForm } from '../vendors/types.js';

/** Whose limit an announced wait covers. */
export type WaitScope = 'key' | 'org' | 'provider';

/** How an attempt's response ended; `shutdown`: the simulator stopped while it was in flight. */
export type AttemptEnd =
  'complete' | 'error-event' | 'truncated' | 'reset' | 'client-abort' | 'malformed' | 'pending' | 'shutdown';

/** One attempt that reached a simulated provider: the evidence every verdict is built on. */
export interface LedgerRow {
  seq: number;
  /** Epoch ms (fractional) when the request arrived. */
  arrivalAt: number;
  /** When the status line and headers were sent; null if never. */
  firstByteAt: number | null;
  /** When the response ended (or the client left); null while in flight. */
  endAt: number | null;
  provider: string;
  vendor: string;
  /** The configured key id, `foreign:<provider>/<key>`, `unknown` or `none`; never the key itself. */
  key: string;
  model: string | null;
  /** `chat` (chat completions, messages, generateContent, Converse), the Responses API, embeddings, Bedrock's InvokeModel. */
  endpoint: 'chat' | 'models' | 'other' | 'responses' | 'embeddings' | 'invoke';
  /** From a correlation header, else a `[tl:…]` marker in the prompt. */
  correlationId: string | null;
  /** The SDK's `x-stainless-retry-count`, if sent. */
  sdkRetryCount: number | null;
  stream: boolean;
  /** Status sent (0 if the connection died before a status line). */
  status: number;
  /** The vendor's error type or code; null on success. */
  errorType: string | null;
  /** The wait the response announced, in ms; null if none, NaN-free (garbage is null with form). */
  hintMs: number | null;
  hintForm: HintForm | 'garbage' | null;
  /**
   * Whose limit a wait announced on a refusal covers (present only on refusals that announced
   * one): the key's own, its organisation's or project's (`org` names it), or the whole
   * provider's. A row without it (an older ledger) is read as the key's.
   */
  scope?: WaitScope;
  /** The organisation (or project) whose limit it is, when `scope` is `org`. */
  org?: string;
  quota: {
    requestsBefore: number | null;
    requestsAfter: number | null;
    tokensBefore: number | null;
    tokensAfter: number | null;
    /** How long the quota would refuse another request like this one once it was admitted (0: room left; null: not admitted). */
    emptyForMs: number | null;
  };
  tokensIn: number;
  tokensOut: number;
  /** Prompt tokens served from the provider's prompt cache (absent when none). */
  cacheRead?: number;
  /** Prompt tokens written to the prompt cache (Anthropic's cache creation; absent when none). */
  cacheWrite?: number;
  /** Ids of the faults applied. */
  faults: string[];
  /**
   * The answer text the provider generated for this attempt (`ContentDigest`, 14 hex digits) and its
   * length in UTF-16 code units; null when it generated none (errors, embeddings).
   */
  contentDigest: string | null;
  contentChars: number | null;
  /**
   * Credentials found anywhere else in the attempt (other headers, query parameters), as
   * `<where>=<owner label>`, e.g. `header:x-api-key=foreign:anthropic/main`; never the values.
   */
  carried: string[];
  /**
   * What the provider was asked, in the words of every API (`RequestFacts` as compact JSON:
   * max tokens, temperature, top_p, stop sequences, seed, tools, tool-result ids, cache hints,
   * the number of turns); absent for a plain request that set none of them.
   */
  request?: string;
  end: AttemptEnd;
  /**
   * Present (true) when a worker of a group decided this attempt's quota alone, from its share
   * of each limit, because the shared engine (Redis) did not answer; absent otherwise, and in
   * ledgers written before the field existed.
   */
  degraded?: true;
}
