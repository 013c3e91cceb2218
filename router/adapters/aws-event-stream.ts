import { createRequire } from 'node:module';
import type { EventStreamCodec } from '@smithy/core/event-streams';
import type { StreamEventReader } from './adapter.js';
import type { SseEvent } from './sse.js';

// Loaded on first use: a router without Bedrock never pays for the codec's import.
let cached: { codec: EventStreamCodec; toUtf8: (b: Uint8Array) => string } | undefined;
function smithy() {
  if (!cached) {
    const require = createRequire(import.meta.url);
    const { EventStreamCodec: Codec } =
      require('@smithy/core/event-streams') as typeof import('@smithy/core/event-streams');
    const utf8 = require('@smithy/util-utf8') as typeof import('@smithy/util-utf8');
    cached = { codec: new Codec(utf8.toUtf8, utf8.fromUtf8), toUtf8: utf8.toUtf8 };
  }
  return cached;
}
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

const broken = (message: string): SseEvent => ({
  event: 'exception:malformedStream',
  data: JSON.stringify({ message }),
});

/**
 * Reads an AWS event stream (Bedrock's ConverseStream): each message's length comes from its
 * prelude, and Smithy's codec decodes it and checks both CRCs. Events come out named by
 * `:event-type`, exceptions as `exception:<:exception-type>`, payloads as text.
 * @see https://docs.aws.amazon.com/AmazonS3/latest/API/RESTSelectObjectAppendix.html (the framing)
 */
export function createAwsEventStreamReader(): StreamEventReader {
  const { codec, toUtf8 } = smithy();
  let buffer = new Uint8Array(0);
  let failed = false;
  const take = (): SseEvent[] => {
    const out: SseEvent[] = [];
    while (!failed && buffer.length >= 4) {
      const total = new DataView(buffer.buffer, buffer.byteOffset, 4).getUint32(0);
      if (total < 16 || total > MAX_MESSAGE_BYTES) {
        failed = true;
        out.push(broken(`an event-stream message claims ${total} bytes`));
        break;
      }
      if (buffer.length < total) break;
      let message;
      try {
        message = codec.decode(buffer.subarray(0, total));
      } catch (error) {
        failed = true;
        out.push(broken(`an event-stream message does not decode: ${(error as Error).message}`));
        break;
      }
      buffer = buffer.subarray(total);
      const h = message.headers;
      const name =
        h[':message-type']?.value === 'event'
          ? String(h[':event-type']?.value ?? 'unknown')
          : `exception:${String(h[':exception-type']?.value ?? h[':error-code']?.value ?? 'unknown')}`;
      out.push({ event: name, data: toUtf8(message.body) });
    }
    return out;
  };
  return {
    push(piece) {
      if (failed) return [];
      // A binary stream comes as bytes; text, should a transport hand it, is its UTF-8.
      const chunk = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
      const next = new Uint8Array(buffer.length + chunk.length);
      next.set(buffer);
      next.set(chunk, buffer.length);
      buffer = next;
      return take();
    },
    end() {
      return !failed && buffer.length > 0 ? [broken('the stream ended inside an event-stream message')] : [];
    },
  };
}
