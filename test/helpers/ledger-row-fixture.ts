import type { LedgerRow } from '../../simulator/index.js';

/** Times a test row lies within. */
export const bounds = { notBefore: 1_000, notAfter: 10_000 };
/** A row as a worker writes it. */
export const row: LedgerRow = {
  seq: 3,
  arrivalAt: 2_000.5,
  firstByteAt: 2_001,
  endAt: 2_050,
  provider: 'openai',
  vendor: 'openai',
  key: 'a',
  model: 'gpt-4o-mini',
  endpoint: 'chat',
  correlationId: null,
  sdkRetryCount: null,
  stream: false,
  status: 429,
  errorType: 'rate_limit_exceeded',
  hintMs: 1_000,
  hintForm: 'seconds',
  scope: 'key',
  quota: { requestsBefore: 0, requestsAfter: 0, tokensBefore: null, tokensAfter: null, emptyForMs: null },
  tokensIn: 12,
  tokensOut: 0,
  faults: [],
  contentDigest: null,
  contentChars: null,
  carried: [],
  end: 'complete',
  degraded: true,
};
