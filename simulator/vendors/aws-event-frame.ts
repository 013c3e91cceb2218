import { createRequire } from 'node:module';
import type { EventStreamCodec } from '@smithy/core/event-streams';
import type { ErrorSpec } from './types.js';

// Loaded on first use: a scenario without Bedrock never pays for the codec's import.
let codecCache: { codec: EventStreamCodec; fromUtf8: (s: string) => Uint8Array } | undefined;
function smithy() {
  if (!codecCache) {
    const require = createRequire(import.meta.url);
    const { EventStreamCodec: Codec } =
      require('@smithy/core/event-streams') as typeof import('@smithy/core/event-streams');
    const utf8 = require('@smithy/util-utf8') as typeof import('@smithy/util-utf8');
    codecCache = { codec: new Codec(utf8.toUtf8, utf8.fromUtf8), fromUtf8: utf8.fromUtf8 };
  }
  return codecCache;
}

/**
 * One AWS event-stream message (prelude, headers, payload, CRCs), encoded by Smithy's codec and
 * returned as a latin1 string: each character one byte, so frames concatenate as bytes do.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
 */
export function eventFrame(headers: Record<string, string>, payload: string): string {
  const { codec, fromUtf8 } = smithy();
  const bytes = codec.encode({
    headers: Object.fromEntries(Object.entries(headers).map(([k, value]) => [k, { type: 'string', value }])),
    body: fromUtf8(payload),
  });
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

// Bedrock pads event payloads with a `p` field so their length does not reveal the tokens.
const PAD = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** The `p` padding of the `n`th event: one to 62 characters. */
export const pad = (n: number): string => PAD.slice(0, 1 + (n % PAD.length));

/** An `event` message of `type` with a JSON payload. */
export function awsEvent(type: string, payload: string): string {
  return eventFrame({ ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' }, payload);
}

/**
 * An error inside a Bedrock stream: an `exception` message named in camel case, each with its own
 * status (API_runtime_ConverseStreamOutput, API_runtime_ResponseStream).
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ResponseStream.html
 */
export function awsStreamException(e: ErrorSpec): string {
  const [type, message] =
    e.kind === 'rate_limited'
      ? ['throttlingException', 'Too many requests, please wait before trying again.']
      : e.kind === 'overloaded' || e.kind === 'unavailable' || e.kind === 'capacity'
        ? ['serviceUnavailableException', 'Service Unavailable. Please try your request again.']
        : e.kind === 'timeout'
          ? ['modelStreamErrorException', 'The model stream ended with an error.']
          : ['internalServerException', 'The server encountered an internal error while processing the request.'];
  return eventFrame(
    { ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' },
    JSON.stringify({ message }),
  );
}
