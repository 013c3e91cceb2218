import type { ChatRequest } from '../core/types.js';
import type { RouteResult } from '../engine/route-result.js';
import type { ItemsContext } from './response-items.js';

/** An answer the server sends as it is (errors found before routing). */
export interface ApiReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Turns the chat-completion chunk frames the engine relays into one client API's stream, frame text by frame text. */
export interface StreamEncoder {
  /** `data: …\n\n` frames in, the client API's frames out. */
  push(frames: string): string;
  /** Whether the stream has ended properly or with an error event (nothing more may be written). */
  readonly ended: boolean;
}

/**
 * One inbound API (OpenAI Responses, Anthropic Messages): requests decoded into the neutral
 * request the engine and the vendor adapters speak (the OpenAI chat shape, with vendor hints such
 * as `cache_control` and `prompt_cache_key` kept on it), answers and errors encoded back.
 */
export interface InboundCodec {
  /** The API's own name, for messages. */
  readonly name: string;
  /** The event a stop ends a live stream with, in this API's shape. */
  readonly shutdownFrame: string;
  /** Whether a stream's last frame text already ended it (properly or with an error event). */
  readonly streamEnded: RegExp;
  /** Header checks before the body is read (Anthropic's `anthropic-version`). */
  preflight?(headers: Record<string, string | string[] | undefined>): ApiReply | undefined;
  /** `items`: what the router returned this caller before (the Responses API's `item_reference`). */
  decode(body: unknown, items?: ItemsContext): { ok: true; req: ChatRequest } | { ok: false; reply: ApiReply };
  /** An error in this API's shape. */
  error(status: number, type: string, code: string | null, message: string, headers?: Record<string, string>): ApiReply;
  /** The engine's answer (a chat completion, an OpenAI-shaped error, or a chunk stream) in this API's shape. */
  encode(result: RouteResult, requestedModel: string, items?: ItemsContext): RouteResult;
}
