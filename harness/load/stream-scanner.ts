import { ContentDigest, formatDigest } from '../../simulator/index.js';
import { contentFrameText } from './content-frame.js';

const MAX_PLAIN = 1 << 20;

interface ChatFrame {
  error?: unknown;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  choices?: Array<{ index?: number; delta?: { content?: string | null }; finish_reason?: string | null }>;
}

/**
 * Scans an OpenAI-compatible SSE body as a client library does, whatever its content type: the
 * content (digested), usage, `finish_reason`, the `[DONE]` terminator and error events.
 */
export class StreamScanner {
  private buffer = '';
  private event: string | undefined;
  private readonly digest = new ContentDigest();
  /** The body's first megabyte while it has shown no `data:` line (a plain answer to a stream request). */
  private plain = '';
  firstContent = false;
  done = false;
  finished = false;
  errored = false;
  /** The `data:` of the first error event (`event: error`, or a frame with an `error` member). */
  errorText: string | undefined;
  frames = 0;
  usage: { prompt: number; completion: number } | null = null;

  /** Feeds text; returns true the first time content appears. */
  push(text: string): boolean {
    if (this.frames === 0 && this.plain.length < MAX_PLAIN) this.plain += text.slice(0, MAX_PLAIN - this.plain.length);
    this.buffer += text;
    let sawFirst = false;
    for (;;) {
      const nl = this.buffer.indexOf('\n');
      if (nl < 0) break;
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      if (this.line(line)) sawFirst = true;
    }
    return sawFirst;
  }

  /** Reads a last line that had no newline after it. */
  flush(): boolean {
    const rest = this.buffer;
    this.buffer = '';
    return rest === '' ? false : this.line(rest.replace(/\r$/, ''));
  }

  private line(line: string): boolean {
    if (line === '') {
      this.event = undefined;
      return false;
    }
    if (line.startsWith('event:')) {
      this.event = line.slice(6).trim();
      if (this.event === 'error') this.errored = true;
      return false;
    }
    if (!line.startsWith('data:')) return false;
    this.frames++;
    const data = line.slice(5).trim();
    if (this.event === 'error') this.errorText ??= data;
    if (data === '[DONE]') {
      this.done = true;
      return false;
    }
    const text = contentFrameText(data);
    if (text !== undefined) return this.digestContent(text);
    let j: ChatFrame;
    try {
      j = JSON.parse(data) as ChatFrame;
    } catch {
      return false; // A line that is not JSON is not content.
    }
    if (j === null || typeof j !== 'object') return false;
    if (j.error) {
      this.errored = true;
      this.errorText ??= data;
    }
    if (j.usage && typeof j.usage.prompt_tokens === 'number')
      this.usage = { prompt: j.usage.prompt_tokens, completion: j.usage.completion_tokens ?? 0 };
    let sawFirst = false;
    for (const c of Array.isArray(j.choices) ? j.choices : []) {
      if ((c.index ?? 0) !== 0) continue;
      if (c.finish_reason) this.finished = true;
      const content = c.delta?.content;
      if (typeof content === 'string' && this.digestContent(content)) sawFirst = true;
    }
    return sawFirst;
  }

  // Digests a choice's content; true the first time content appears.
  private digestContent(text: string): boolean {
    if (text.length === 0) return false;
    this.digest.update(text);
    if (this.firstContent) return false;
    this.firstContent = true;
    return true;
  }

  /** The body when it held no SSE frame at all (a plain answer), else undefined. */
  get plainBody(): string | undefined {
    return this.frames === 0 ? this.plain : undefined;
  }

  get end(): 'done' | 'finish' | 'error-event' | 'silent' {
    return this.errored ? 'error-event' : this.done ? 'done' : this.finished ? 'finish' : 'silent';
  }

  get content(): { contentDigest: string; contentChars: number } {
    return { contentDigest: formatDigest(this.digest.value()), contentChars: this.digest.length };
  }
}
