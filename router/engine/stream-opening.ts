import type { StreamEventReader, StreamFailure, StreamTranslator, Translated } from '../adapters/adapter.js';
import type { SseEvent } from '../adapters/sse.js';
import type { AttemptOutcome, Usage } from '../core/types.js';

const frame = (json: string) => `data: ${json}\n\n`;

/**
 * A stream read until its first content token, body chunk by body chunk: the frames translated so
 * far, and whether the provider failed, finished or committed to an answer. Until it commits, the
 * attempt can still fail over.
 */
export class StreamOpening {
  /** The frames to send the client first, redacted. */
  readonly first: string[] = [];
  committed = false;
  /** An event came (a role, a usage frame): inference has begun; before it only keep-alive filler came. */
  sawEvent = false;
  finished = false;
  lastUsage: Usage | undefined;
  /** Events that arrived with the first content and still need relaying. */
  leftover: SseEvent[] = [];

  /** `status` is the answer's, for a stream that ends without finishing. */
  constructor(
    readonly reader: StreamEventReader,
    readonly translator: StreamTranslator,
    readonly redact: (text: string) => string,
    private readonly status: number,
  ) {}

  private take(t: Translated): StreamFailure | undefined {
    for (const c of t.chunks) this.first.push(this.redact(frame(c)));
    if (t.usage) this.lastUsage = t.usage;
    if (t.content) this.committed = true;
    if (t.done) this.finished = true;
    return t.error;
  }

  /** Reads a body chunk; the attempt's failure when the stream is malformed or reports an error. */
  push(chunk: Uint8Array | string): AttemptOutcome | undefined {
    const events = this.reader.push(chunk);
    if (events.length > 0) this.sawEvent = true;
    if (this.reader.malformed !== undefined)
      return { kind: 'stream_error', message: `malformed_stream: ${this.reader.malformed}` };
    for (let i = 0; i < events.length; i++) {
      const error = this.take(this.translator.onEvent(events[i]!.data, events[i]!.event));
      if (error) {
        const overloaded = /overload/i.test(`${error.type} ${error.code} ${error.message}`);
        return overloaded ? { kind: 'overloaded', status: 200 } : { kind: 'server_error', status: 200 };
      }
      // Once content is in hand the stream is committed; later events belong to the client.
      if (this.committed) {
        this.leftover = events.slice(i + 1);
        break;
      }
    }
    return undefined;
  }

  /** The body ended: the attempt's failure unless the stream finished properly. */
  end(): AttemptOutcome | undefined {
    for (const ev of this.reader.end()) this.take(this.translator.onEvent(ev.data, ev.event));
    const t = this.translator.onEnd();
    this.take(t);
    return this.finished || !t.error ? undefined : { kind: 'server_error', status: this.status };
  }
}
