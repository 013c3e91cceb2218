/** One server-sent event. */
export interface SseEvent {
  event?: string;
  data: string;
}

/**
 * An incremental SSE reader: feed it text as it arrives, take complete events out. Comments
 * (`: keep-alive`) and blank keep-alive lines produce no event, so they never count as content.
 * Accepts LF, CRLF and CR line ends (Gemini frames with CRLF pairs).
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
export class SseReader {
  private buffer = '';
  private event: string | undefined;
  private data: string[] = [];

  /** Adds text and returns the events it completed. */
  push(text: string): SseEvent[] {
    this.buffer += text;
    const out: SseEvent[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A lone CR at the end may be half of CRLF: wait for more.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      if (line === '') {
        if (this.data.length > 0) out.push({ event: this.event, data: this.data.join('\n') });
        this.event = undefined;
        this.data = [];
      } else if (line.startsWith(':')) {
        continue;
      } else {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') this.data.push(value);
        else if (field === 'event') this.event = value;
      }
    }
    return out;
  }

  /** Completes a final event that lacks its blank line. */
  end(): SseEvent[] {
    const tail = this.buffer.length > 0 ? this.push('\n') : [];
    const out = [...tail];
    if (this.data.length > 0) out.push({ event: this.event, data: this.data.join('\n') });
    this.data = [];
    return out;
  }
}

/** Server-sent events from bytes: UTF-8 decoded across chunk boundaries, then {@link SseReader}. */
export function createSseByteReader(): { push(chunk: Uint8Array): SseEvent[]; end(): SseEvent[] } {
  const reader = new SseReader();
  const decoder = new TextDecoder();
  return {
    push: (chunk) => reader.push(decoder.decode(chunk, { stream: true })),
    end: () => {
      const rest = decoder.decode();
      return rest ? [...reader.push(rest), ...reader.end()] : reader.end();
    },
  };
}
