import { contentDigest } from '../../simulator/index.js';
import type { ErrorAnswer } from './error-answer.js';
import type { StreamScanner } from './stream-scanner.js';

export type { ErrorAnswer } from './error-answer.js';
export { StreamScanner } from './stream-scanner.js';

/** What a client saw of one request: the other half of the evidence, joined to the ledger by `id`. */
export interface ClientOutcome {
  /** The correlation id, sent as a header and as a `[tl:…]` marker in the prompt. */
  id: string;
  model: string;
  stream: boolean;
  deadlineMs: number;
  /** Epoch ms the request was due (open loop) or prepared (closed loop). */
  scheduledAt: number;
  sentAt: number;
  /** Status line and headers received; null if never (or not measured, closed loop). */
  firstByteAt: number | null;
  /** First content token of a stream. */
  firstContentAt: number | null;
  endAt: number;
  /** 0 when no response came (network error, or the client gave up). */
  status: number;
  /** `client-timeout`, `network`, or the error code of an error body. */
  error: string | null;
  /**
   * How a 200 stream ended: `[DONE]`; `finish`: a `finish_reason` but no `[DONE]` after it (complete,
   * as clients read it; a warning); an error event; or silently (neither).
   */
  streamEnd: 'done' | 'finish' | 'error-event' | 'silent' | null;
  /**
   * The cause in words: the first 300 bytes of an error body the router sent, or of the error
   * event a stream ended with (its `data:`), or the local error that kept the request from an
   * answer (`UND_ERR_INVALID_ARG: invalid x-config header`).
   */
  detail?: string | null;
  /** Usage the router reported for this request, if any. */
  usage: { prompt: number; completion: number } | null;
  /** `x-throttlelab-provider`, when the router names who served. */
  servedBy: string | null;
  retryAfter: string | null;
  /** The response's content type as sent (a stream is read as SSE whatever it says). */
  contentType?: string | null;
  /** Digest (`ContentDigest`) and length of the answer text the client received; absent if none was read. */
  contentDigest?: string | null;
  contentChars?: number;
  /** `data:` frames of a stream. */
  frames?: number;
  /**
   * What the client asked for, as `RequestFacts` JSON (the simulator's words for every API: the
   * ledger's `request` is the same for each attempt); absent unless the load draws the client
   * surface (`load.requests.surface`).
   */
  request?: string;
  /** Which replica of a fleet the request was sent to (absent for a single router). */
  replica?: number;
  /** The router's own answer when it answered an error (a status of 400 or more): what the client's SDK parses. */
  errorAnswer?: ErrorAnswer;
}

/** A stream that ended as clients accept it: with `[DONE]`, or with a `finish_reason` and no error. */
export function streamCompleted(o: Pick<ClientOutcome, 'streamEnd'>): boolean {
  return o.streamEnd === 'done' || o.streamEnd === 'finish';
}

/** Whether a content type is the one an SSE stream should carry. */
export function isEventStreamType(type: string | null | undefined): boolean {
  return /^\s*text\/event-stream\s*(;|$)/i.test(type ?? '');
}

/** At most the first 300 bytes of an error body, as text (cut on a character boundary). */
export function bodySnippet(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= 300) return text;
  return `${new TextDecoder().decode(bytes.subarray(0, 300)).replace(/\uFFFD$/, '')}…`;
}

/** A local error in words: its code, message and cause, so a report names why a request got no answer. */
export function describeLocalError(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown; cause?: unknown; name?: unknown } | null;
  if (!e || typeof e !== 'object') return String(error);
  const head = [
    typeof e.code === 'string' ? e.code : undefined,
    typeof e.message === 'string' ? e.message : String(e.name ?? 'error'),
  ]
    .filter(Boolean)
    .join(': ');
  const cause = e.cause && typeof e.cause === 'object' ? describeLocalError(e.cause) : undefined;
  return bodySnippet(cause && !head.includes(cause) ? `${head} (cause: ${cause})` : head);
}

/** Records what a stream scan found on an outcome (a plain body answering a stream request ends silently). */
export function applyStream(out: ClientOutcome, scanner: StreamScanner): void {
  scanner.flush();
  const plain = scanner.plainBody;
  if (plain !== undefined && plain.trimStart().startsWith('{')) {
    const answer = readAnswer(out.status, plain);
    out.usage = answer.usage;
    out.contentDigest = answer.contentDigest;
    out.contentChars = answer.contentChars;
    out.streamEnd = 'silent';
    out.frames = 0;
    return;
  }
  out.streamEnd = scanner.end;
  // What the router said when it ended the stream with an error: read as its error answers are (OWN-3).
  if (scanner.errorText !== undefined) out.detail = bodySnippet(scanner.errorText);
  out.usage = scanner.usage;
  out.frames = scanner.frames;
  Object.assign(out, scanner.content);
}

interface MessagesAnswer {
  type?: unknown;
  content?: unknown;
  usage?: {
    input_tokens?: unknown;
    output_tokens?: unknown;
    cache_read_input_tokens?: unknown;
    cache_creation_input_tokens?: unknown;
  };
}

const tokens = (v: unknown) => (typeof v === 'number' ? v : 0);

/**
 * An Anthropic Messages answer's text (its text blocks, joined) and usage, with the prompt counted
 * as chat completions count it: Anthropic's `input_tokens` leaves out the tokens read from or
 * written to the prompt cache, OpenAI's `prompt_tokens` holds them.
 * @see https://docs.anthropic.com/en/api/messages
 */
function readMessagesAnswer(j: MessagesAnswer): { usage: ClientOutcome['usage']; text: string | undefined } {
  const u = j.usage;
  const usage =
    u && typeof u.input_tokens === 'number'
      ? {
          prompt: u.input_tokens + tokens(u.cache_read_input_tokens) + tokens(u.cache_creation_input_tokens),
          completion: tokens(u.output_tokens),
        }
      : null;
  if (!Array.isArray(j.content)) return { usage, text: undefined };
  let text = '';
  for (const b of j.content as Array<{ type?: unknown; text?: unknown }>)
    if (b?.type === 'text' && typeof b.text === 'string') text += b.text;
  return { usage, text };
}

/**
 * Reads what a complete (non-streaming) answer says: usage, its content, or an error code and the
 * body's start. A chat completion, or an Anthropic Messages answer (`type: 'message'`).
 */
export function readAnswer(
  status: number,
  text: string,
): {
  usage: ClientOutcome['usage'];
  error: string | null;
  detail: string | null;
  contentDigest: string | null;
  contentChars?: number;
} {
  try {
    // A body of `null` reads as an empty object: no usage, no content, the status its error.
    const j = (JSON.parse(text) ?? {}) as {
      usage?: { prompt_tokens?: number; completion_tokens?: number };
      error?: { code?: unknown; type?: unknown };
      choices?: Array<{ index?: number; message?: { content?: unknown } }>;
    };
    if ((j as MessagesAnswer).type === 'message' && status < 400) {
      const m = readMessagesAnswer(j as MessagesAnswer);
      const content = m.text === undefined ? null : contentDigest(m.text);
      if (m.text === undefined) return { usage: m.usage, error: null, detail: null, contentDigest: content };
      return { usage: m.usage, error: null, detail: null, contentDigest: content, contentChars: m.text.length };
    }
    const usage =
      j.usage && typeof j.usage.prompt_tokens === 'number'
        ? { prompt: j.usage.prompt_tokens, completion: j.usage.completion_tokens ?? 0 }
        : null;
    const error = status >= 400 ? String(j.error?.code ?? j.error?.type ?? status) : null;
    const detail = status >= 400 ? bodySnippet(text) : null;
    const content = Array.isArray(j.choices)
      ? j.choices.find((c) => (c.index ?? 0) === 0)?.message?.content
      : undefined;
    if (typeof content !== 'string') return { usage, error, detail, contentDigest: null };
    return { usage, error, detail, contentDigest: contentDigest(content), contentChars: content.length };
  } catch {
    return {
      usage: null,
      error: status >= 400 ? String(status) : null,
      detail: status >= 400 ? bodySnippet(text) : null,
      contentDigest: null,
    };
  }
}

/** A request's outcome before any answer: what was planned and when it left. */
export function pendingOutcome(
  p: { id: string; model: string; stream: boolean; deadlineMs: number; request?: string },
  scheduledAt: number,
  sentAt: number,
): ClientOutcome {
  const out: ClientOutcome = {
    id: p.id,
    model: p.model,
    stream: p.stream,
    deadlineMs: p.deadlineMs,
    scheduledAt,
    sentAt,
    firstByteAt: null,
    firstContentAt: null,
    endAt: 0,
    status: 0,
    error: null,
    streamEnd: null,
    usage: null,
    servedBy: null,
    retryAfter: null,
  };
  if (p.request !== undefined) out.request = p.request;
  return out;
}

/** Records an answer's status line and headers on an outcome, at `now`: its first byte. */
export function applyHead(
  out: ClientOutcome,
  now: number,
  status: number,
  header: (name: string) => string | null,
): void {
  out.firstByteAt = now;
  out.status = status;
  out.servedBy = header('x-throttlelab-provider');
  out.retryAfter = header('retry-after');
  out.contentType = header('content-type');
}

/**
 * Records a request that ended in an error: a client timeout if the client gave up, otherwise a
 * network error, described unless the request was stopped on purpose (then the error says nothing).
 */
export function applyFailure(out: ClientOutcome, error: unknown, how: { gaveUp: boolean; stopped: boolean }): void {
  out.error = how.gaveUp ? 'client-timeout' : 'network';
  if (!how.stopped) out.detail = describeLocalError(error);
  // A stream the client gave up on is late (the deadline check's), not ended by the router.
  if (out.stream && out.status >= 200 && out.status < 300 && out.error === 'network') out.streamEnd = 'silent';
}

/** Records a complete (non-streamed) answer on an outcome, as `applyStream` does for a stream. */
export function applyAnswer(out: ClientOutcome, status: number, text: string): void {
  const answer = readAnswer(status, text);
  out.usage = answer.usage;
  out.error = answer.error;
  if (answer.detail) out.detail = answer.detail;
  out.contentDigest = answer.contentDigest;
  if (answer.contentChars !== undefined) out.contentChars = answer.contentChars;
}
