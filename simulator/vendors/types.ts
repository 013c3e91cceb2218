import type { Rng } from '../core/rng.js';
import type { LimitView, QuotaRule } from '../quota/quota-set.js';
import type { Metric } from '../quota/meter.js';

/** The vendors the simulator imitates. */
export type VendorId =
  | 'openai'
  | 'azure-openai'
  | 'anthropic'
  | 'gemini'
  | 'groq'
  | 'mistral'
  | 'deepseek'
  | 'ratelimit-draft'
  | 'bedrock'
  | 'vertex-ai'
  | 'openrouter'
  | 'cerebras'
  | 'together'
  | 'xai';

/** Header fields of a response, lower-case names. */
export type HeaderMap = Record<string, string>;

/** A request as it arrived, independent of transport. */
export interface SimRequest {
  method: string;
  /** Path and query, e.g. `/openai/v1/chat/completions?x=1`. */
  url: string;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  body: string;
}

/** The APIs besides a vendor's own chat API that a path can name (`invoke`: Bedrock's InvokeModel). */
export type ApiKind = 'responses' | 'embeddings' | 'invoke';

/** What a vendor path means: `chat` is any request that is answered and metered (`api` names which API). */
export type Route =
  | { kind: 'chat'; api?: ApiKind; model?: string; stream?: boolean; meta?: Record<string, string> }
  | { kind: 'models' }
  /** A connection warm-up an SDK sends on its own (Cerebras `GET /v1/tcp_warming`): answered, never an attempt. */
  | { kind: 'warm-up'; status: number; body: string }
  | { kind: 'not-found'; method: string; path: string };

/** A chat request, normalised from any vendor's body. */
export interface ChatRequest {
  model: string;
  stream: boolean;
  /** OpenAI `stream_options.include_usage`. */
  includeUsage: boolean;
  maxTokens?: number;
  /** All prompt text joined, for token estimates and correlation markers. */
  promptText: string;
  messageCount: number;
  /** An embeddings request: how many inputs and vectors of what size; nothing is generated. */
  embedding?: EmbeddingRequest;
  /** Tools the request offers (absent when none, or when `tool_choice` rules them out). */
  tools?: ToolOffer[];
  /** The last turn hands back tool results: the model answers in text. */
  afterToolResult?: boolean;
}

/** A tool a request offers the model. */
export interface ToolOffer {
  name: string;
  /** Its JSON schema, for seeded arguments. */
  schema: unknown;
  /** Named by `tool_choice`: the model must call this one. */
  forced?: boolean;
}

/** A seeded tool call an answer carries after its text. */
export interface ToolCallSpec {
  id: string;
  name: string;
  /** The arguments as a JSON object text. */
  argsJson: string;
}

/** What an embeddings request asks for. */
export interface EmbeddingRequest {
  inputs: number;
  dimensions: number;
  encoding: 'float' | 'base64';
}

/** How a wait was communicated to the client. */
export type HintForm = 'seconds' | 'ms' | 'http-date' | 'reset-header' | 'body' | 'none';

/** A wait the vendor should communicate; `raw` replaces the formatted value (lying hints). */
export interface Hint {
  ms: number;
  /** `vendor` uses the vendor's native forms. */
  form: HintForm | 'vendor';
  raw?: string;
}

/** The kinds of failure a vendor knows how to phrase. */
export type ErrorKind =
  | 'invalid_api_key'
  | 'missing_api_key'
  | 'bad_json'
  | 'invalid_request'
  | 'model_not_found'
  | 'wrong_model_kind'
  | 'not_found'
  | 'payload_too_large'
  | 'rate_limited'
  | 'request_too_large'
  | 'quota_exhausted'
  | 'slow_down'
  | 'capacity'
  | 'server_error'
  | 'bad_gateway'
  | 'overloaded'
  | 'unavailable'
  | 'timeout';

/** A limit that was hit, as a 429 body describes it. */
export interface ViolationInfo {
  rule: QuotaRule;
  metric: Metric;
  limit: number;
  used: number;
  requested: number;
}

/** A failure to encode in the vendor's shape. */
export interface ErrorSpec {
  kind: ErrorKind;
  /** Overrides the vendor's default status for this kind (forced faults). */
  status?: number;
  message?: string;
  param?: string;
  violation?: ViolationInfo;
  hint?: Hint;
  /** Sends `x-should-retry` with this value. */
  shouldRetry?: boolean;
  /**
   * Whose limit a refusal is: the key's own, its organisation's (or project's), or the whole
   * provider's (the ledger reads none as the key's). The ledger keeps it; OpenAI's, Groq's and
   * Anthropic's 429 texts name the organisation whatever it is, as the real ones always do.
   */
  scope?: 'key' | 'org' | 'provider';
  /** For `wrong_model_kind`: what the request asked of the model. */
  operation?: 'chat' | 'embeddings';
  /** The presented credential, already masked (`****WXYZ`), for 401 messages that echo it. */
  maskedKey?: string;
}

/** An encoded error, with the wait actually communicated (for the ledger). */
export interface EncodedError {
  status: number;
  headers: HeaderMap;
  body: string;
  /** The authoritative wait sent, if any. */
  hintSent?: { ms: number; form: HintForm };
  /** The vendor's error type/code, for the ledger. */
  errorType: string;
}

/** Per-request facts encoders need. */
export interface EncodeContext {
  now: number;
  rng: Rng;
  requestId: string;
  providerId: string;
  org: string;
  model: string;
  options: Record<string, unknown>;
  /** Server-side processing time to report, where the vendor reports one. */
  processingMs?: number;
  /** Facts the route took from the path or query (e.g. Azure's `api-version`). */
  meta?: Record<string, string>;
}

/** A generated answer. */
export interface Completion {
  id: string;
  createdAt: number;
  model: string;
  /** Content tokens in order; each already carries its leading space. */
  tokens: string[];
  /** The whole text as a JSON string literal (quotes included). */
  textJson: string;
  inputTokens: number;
  /** Of `inputTokens`, those read from the prompt cache and those written to it (Anthropic's cache creation). */
  cacheRead?: number;
  cacheWrite?: number;
  finishReason: 'stop' | 'length';
  /** The request's `max_output_tokens` and the like, for APIs that echo it. */
  maxTokens?: number;
  /** Set for embeddings: the vectors to produce. */
  embedding?: EmbeddingRequest;
  /** A tool call the answer ends with (its finish reason is the vendor's tool-use reason). */
  toolCall?: ToolCallSpec;
}

/** A streamed answer split into frames: sent before, between and after content. */
export interface StreamFrames {
  /** Written with the response head, before the wait for the first token (OpenRouter's comment). */
  opening?: string;
  /** Frames before the first content token (not content: e.g. message_start, role chunk). */
  head: string[];
  /** Encodes content tokens `from..to` (exclusive) as one frame. */
  content(from: number, to: number): string;
  /** Frames after the last content token, terminator included (read after the content). */
  tail: string[];
  /** An error inside this stream, when it must follow the stream's own numbering (else `streamError`). */
  error?(e: ErrorSpec): string;
}

/** Defaults a vendor profile applies when the scenario is silent. */
export interface VendorDefaults {
  algorithm: Partial<Record<Metric, 'token-bucket' | 'fixed-window' | 'sliding-window'>>;
  /** Day-long fixed windows start at local midnight in this zone. */
  dayWindowTimeZone?: string;
  /** How `tokens` are charged at admission. */
  tokenAdmission: 'input' | 'input+max_tokens' | 'max(input,max_tokens)';
  /** Whether output tokens are charged to `tokens` when the response ends. */
  chargeOutputToTokens: boolean;
  /** Whether refused requests still take a request unit. */
  countRejected: boolean;
  /** Content tokens per stream frame. */
  tokensPerFrame: number;
}

/** One API's request validation and answer encoders (a vendor's chat API, the Responses API, embeddings). */
export interface ApiSurface {
  /** A fresh id in this API's format, where it differs from the vendor's chat ids. */
  completionId?(ctx: EncodeContext): string;
  parse(route: Route & { kind: 'chat' }, body: unknown): ChatRequest | ErrorSpec;
  completion(c: Completion, ctx: EncodeContext): string;
  stream(c: Completion, ctx: EncodeContext, includeUsage: boolean): StreamFrames;
  streamError(e: ErrorSpec, ctx: EncodeContext): string;
}

/** One vendor: routes, auth, validation, and every encoder. The only place vendor shapes live. */
export interface VendorProfile extends ApiSurface {
  readonly id: VendorId;
  readonly title: string;
  readonly defaults: VendorDefaults;
  /** False for vendors with no reset headers, where a `reset-header` hint cannot be carried. */
  readonly resetHeaders?: false;
  /** False for vendors whose error bodies have no place for a wait (problem details, Bedrock, OpenRouter). */
  readonly bodyHints?: false;
  /** Refuses chat on an embedding model and embeddings on a chat model (`wrong_model_kind`), where sourced. */
  readonly modelKinds?: true;
  /** Bytes, not text: frames are latin1 strings of binary data (AWS event streams). */
  readonly binaryStreams?: true;
  /** What a configured key value is matched as (Bedrock matches `AKID:SECRET` by its access key id). */
  keyIdentity?(value: string): string;
  /** A fresh completion/message id in the vendor's format. */
  completionId(ctx: EncodeContext): string;
  /** The base URL an SDK needs, given the provider's root (`http://127.0.0.1:P/<id>`). */
  baseUrl(root: string): string;
  /** Environment lines an SDK or router reads. */
  envLines(baseUrl: string, keyValue: string): Array<[string, string]>;
  route(method: string, path: string, query: URLSearchParams): Route;
  credential(req: SimRequest, query: URLSearchParams): string | undefined;
  /** Header checks after auth (e.g. `anthropic-version`). */
  preflight?(req: SimRequest): ErrorSpec | undefined;
  /** The other APIs the vendor serves, each with its own bodies (the routes say which a path is). */
  readonly apis?: Partial<Record<ApiKind, ApiSurface>>;
  error(e: ErrorSpec, views: LimitView[], ctx: EncodeContext): EncodedError;
  models(names: readonly string[], ctx: EncodeContext): string;
  /** Rate-limit headers for a response, from the live limit views. */
  rateLimitHeaders(views: LimitView[], ctx: EncodeContext): HeaderMap;
  /** Headers on every response (request ids and the like). */
  commonHeaders(ctx: EncodeContext): HeaderMap;
  /** Content type of a success body; defaults to JSON and `text/event-stream; charset=utf-8`. */
  contentType?(stream: boolean, ctx: EncodeContext): string;
  /** The filler a held request emits before inference starts. */
  keepAlive(stream: boolean): string;
}
