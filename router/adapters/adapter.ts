import type { ChatRequest, Usage, VendorKind } from '../core/types.js';
import type { SseEvent } from './sse.js';

/** An HTTP request to a provider. */
export interface HttpCall {
  method: 'POST' | 'GET';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** The facts an adapter needs to call one target. */
export interface CallContext {
  baseUrl: string;
  model: string;
  /** This target's own key; never another provider's. */
  apiKey: string;
  apiVersion?: string;
  /** Bedrock's region, for SigV4. */
  region?: string;
  /** Headers to pass on (correlation ids). */
  forward: Record<string, string>;
  /** `max_tokens` for vendors that require one when the client gave none. */
  defaultMaxTokens: number;
  /** Epoch ms, for `created` fields. */
  now: number;
  /**
   * The client's body as it arrived, when it is the request itself (`POST /v1/chat/completions` or
   * `/v1/embeddings`, not a translated API): an OpenAI-style adapter edits its top-level members in
   * place rather than serialising the parsed request again.
   */
  raw?: string;
}

/** An OpenAI error as sent inside a stream. */
export interface StreamFailure {
  message: string;
  type: string;
  code: string | null;
}

/** What one upstream stream event turned into, in OpenAI terms. */
export interface Translated {
  /** OpenAI `chat.completion.chunk` JSON texts to send on. */
  chunks: string[];
  /** Whether any of them carries content (the point after which a stream is committed). */
  content: boolean;
  usage?: Usage;
  /** The stream finished properly. */
  done?: boolean;
  /** The provider reported an error inside the stream. */
  error?: StreamFailure;
}

/** Turns a vendor's stream into OpenAI chunks, event by event. */
export interface StreamTranslator {
  onEvent(data: string, event: string | undefined): Translated;
  /** The upstream body ended; a stream that did not finish properly reports an error. */
  onEnd(): Translated;
}

/** A success body translated to OpenAI's `chat.completion`. */
export interface Completed {
  body: string;
  usage: Usage;
}

/** Splits a stream body into events as its bytes arrive. */
export interface StreamEventReader {
  /** Adds a body chunk: bytes, or text a transport held as text (see `HttpResponse.body`). */
  push(chunk: Uint8Array | string): SseEvent[];
  /** The body ended: completes a last event that lacks its terminator. */
  end(): SseEvent[];
  /**
   * Why the stream is malformed past repair (a line or event over its bound), once it is: the
   * attempt fails as `malformed_stream` rather than the reader growing without end.
   */
  readonly malformed?: string;
}

/** One vendor's wire format, both ways. */
export interface ProviderAdapter {
  readonly vendor: VendorKind;
  /** The upstream call; async where it must be signed (Bedrock's SigV4). */
  buildRequest(req: ChatRequest, ctx: CallContext, stream: boolean): HttpCall | Promise<HttpCall>;
  /** How this vendor frames streams; server-sent events when absent. */
  streamReader?(): StreamEventReader;
  /** Loads what `buildRequest` loads on first use (a run in simulated time must not wait on real I/O mid-run). */
  warmUp?(): Promise<void>;
  /** Tokens the vendor charges up front, for capacity reservations. */
  admissionTokens(req: ChatRequest, inputTokens: number): number;
  parseCompletion(text: string, ctx: CallContext): Completed | { error: string };
  streamTranslator(ctx: CallContext, clientWantsUsage: boolean): StreamTranslator;
  /** Embeddings (`POST /v1/embeddings` bodies), for the vendors that serve them. */
  readonly embeddings?: EmbeddingsAdapter;
}

/** One vendor's embeddings endpoint: OpenAI's body in, OpenAI's list out. */
export interface EmbeddingsAdapter {
  buildRequest(req: ChatRequest, ctx: CallContext): HttpCall;
  /** The answer as OpenAI's list; `req` is the client's request (its `encoding_format`). */
  parse(text: string, req?: ChatRequest): Completed | { error: string };
}
