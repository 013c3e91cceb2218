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
   * The cause in words: the first 300 bytes of an error body the router sent, or the local error
   * that kept the request from an answer (`UND_ERR_INVALID_ARG: invalid x-config header`).
   */
  detail?: string | null;
  /** How a 200 stream ended: `[DONE]`, an error event, or silently. */
  streamEnd: 'done' | 'error-event' | 'silent' | null;
  /** Usage the router reported for this request, if any. */
  usage: { prompt: number; completion: number } | null;
  /** `x-throttlelab-provider`, when the router names who served. */
  servedBy: string | null;
  retryAfter: string | null;
  /** Which replica of a fleet the request was sent to (absent for a single router). */
  replica?: number;
}

/** Scans an OpenAI-compatible SSE body for content, usage, its terminator and error events. */
export class StreamScanner {
  private buffer = '';
  private event: string | undefined;
  firstContent = false;
  done = false;
  errored = false;
  usage: { prompt: number; completion: number } | null = null;

  /** Feeds text; returns true the first time content appears. */
  push(text: string): boolean {
    this.buffer += text;
    let sawFirst = false;
    for (;;) {
      const nl = this.buffer.indexOf('\n');
      if (nl < 0) break;
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      if (line === '') {
        this.event = undefined;
        continue;
      }
      if (line.startsWith('event:')) {
        this.event = line.slice(6).trim();
        if (this.event === 'error') this.errored = true;
        continue;
      }
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '[DONE]') {
        this.done = true;
        continue;
      }
      try {
        const j = JSON.parse(data) as {
          error?: unknown;
          usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
          choices?: Array<{ delta?: { content?: string | null } }>;
        };
        if (j.error) this.errored = true;
        if (j.usage && typeof j.usage.prompt_tokens === 'number')
          this.usage = { prompt: j.usage.prompt_tokens, completion: j.usage.completion_tokens ?? 0 };
        if (
          !this.firstContent &&
          j.choices?.some((c) => typeof c.delta?.content === 'string' && c.delta.content.length > 0)
        ) {
          this.firstContent = true;
          sawFirst = true;
        }
      } catch {
        // A line that is not JSON is not content.
      }
    }
    return sawFirst;
  }

  get end(): 'done' | 'error-event' | 'silent' {
    return this.errored ? 'error-event' : this.done ? 'done' : 'silent';
  }
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

/** Reads what a complete (non-streaming) answer says: usage, or an error code and the body's start. */
export function readAnswer(
  status: number,
  text: string,
): { usage: ClientOutcome['usage']; error: string | null; detail: string | null } {
  try {
    const j = JSON.parse(text) as {
      usage?: { prompt_tokens?: number; completion_tokens?: number };
      error?: { code?: unknown; type?: unknown };
    };
    const usage =
      j.usage && typeof j.usage.prompt_tokens === 'number'
        ? { prompt: j.usage.prompt_tokens, completion: j.usage.completion_tokens ?? 0 }
        : null;
    const error = status >= 400 ? String(j.error?.code ?? j.error?.type ?? status) : null;
    return { usage, error, detail: status >= 400 ? bodySnippet(text) : null };
  } catch {
    return {
      usage: null,
      error: status >= 400 ? String(status) : null,
      detail: status >= 400 ? bodySnippet(text) : null,
    };
  }
}
