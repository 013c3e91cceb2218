/** One server-sent event. */
export interface SseEvent {
  event?: string;
  data: string;
}

/** Longest line an upstream may send (a whole OpenAI chunk is a few hundred bytes). */
export const MAX_SSE_LINE_CHARS = 4 * 1024 * 1024;
/** Most data one event may carry across its lines. */
export const MAX_SSE_EVENT_CHARS = 8 * 1024 * 1024;

const LINE_END = /\r\n|\r|\n/g;

/**
 * An incremental SSE reader: feed it text as it arrives, take complete events out. Comments
 * (`: keep-alive`) and blank keep-alive lines produce no event, so they never count as content.
 * Accepts LF, CRLF and CR line ends (Gemini frames with CRLF pairs). Each chunk is scanned once
 * (a stream without line ends costs nothing per chunk), and a line or event past its bound
 * marks the stream `malformed` instead of growing without end.
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
export class SseReader {
  /** Text of the line not yet ended. */
  private partial = '';
  private event: string | undefined;
  private data: string[] = [];
  private dataChars = 0;
  /** The previous chunk ended with CR: a LF starting this one belongs to it. */
  private afterCr = false;
  /** Why the stream is malformed, once it is; later text is ignored. */
  malformed: string | undefined;

  /** Adds text and returns the events it completed. */
  push(text: string): SseEvent[] {
    const out: SseEvent[] = [];
    if (this.malformed !== undefined) return out;
    let from = 0;
    if (this.afterCr) {
      this.afterCr = false;
      if (text.charCodeAt(0) === 0x0a) from = 1;
    }
    LINE_END.lastIndex = from;
    for (let m = LINE_END.exec(text); m !== null; m = LINE_END.exec(text)) {
      const line = this.partial === '' ? text.slice(from, m.index) : this.partial + text.slice(from, m.index);
      this.partial = '';
      from = m.index + m[0].length;
      if (m[0] === '\r' && from === text.length) this.afterCr = true;
      if (!this.line(line, out)) return out;
    }
    if (from < text.length) {
      this.partial += text.slice(from);
      if (this.partial.length > MAX_SSE_LINE_CHARS) this.fail(`a line over ${MAX_SSE_LINE_CHARS} characters`);
    }
    return out;
  }

  /** Completes a final event that lacks its blank line. */
  end(): SseEvent[] {
    if (this.malformed !== undefined) return [];
    const out: SseEvent[] = [];
    if (this.partial !== '') {
      const line = this.partial;
      this.partial = '';
      this.line(line, out);
    }
    if (this.malformed === undefined && this.data.length > 0)
      out.push({ event: this.event, data: this.data.join('\n') });
    this.data = [];
    this.dataChars = 0;
    return out;
  }

  // Interprets one line; false once the stream is malformed.
  private line(line: string, out: SseEvent[]): boolean {
    if (line === '') {
      if (this.data.length > 0) out.push({ event: this.event, data: this.data.join('\n') });
      this.event = undefined;
      this.data = [];
      this.dataChars = 0;
      return true;
    }
    if (line.charCodeAt(0) === 0x3a) return true;
    if (line.length > MAX_SSE_LINE_CHARS) return this.fail(`a line over ${MAX_SSE_LINE_CHARS} characters`);
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.charCodeAt(colon + 1) === 0x20 ? line.slice(colon + 2) : line.slice(colon + 1);
    if (field === 'data') {
      this.dataChars += value.length;
      if (this.dataChars > MAX_SSE_EVENT_CHARS) return this.fail(`an event over ${MAX_SSE_EVENT_CHARS} characters`);
      this.data.push(value);
    } else if (field === 'event') this.event = value;
    return true;
  }

  private fail(why: string): false {
    this.malformed = why;
    this.partial = '';
    this.data = [];
    return false;
  }
}

/**
 * Server-sent events from bytes: UTF-8 decoded across chunk boundaries, then {@link SseReader}.
 * Text chunks go to the reader as they are (a transport gives one kind or the other, never both).
 */
export function createSseByteReader(): {
  push(chunk: Uint8Array | string): SseEvent[];
  end(): SseEvent[];
  readonly malformed: string | undefined;
} {
  const reader = new SseReader();
  const decoder = new TextDecoder();
  return {
    push: (chunk) => reader.push(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })),
    end: () => {
      const rest = decoder.decode();
      return rest ? [...reader.push(rest), ...reader.end()] : reader.end();
    },
    get malformed() {
      return reader.malformed;
    },
  };
}
