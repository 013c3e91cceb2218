import type { Translated } from './adapter.js';

/** A stream event that is not JSON: the stream cannot be read on. */
export function notJsonEvent(): Translated {
  return {
    chunks: [],
    content: false,
    error: {
      message: 'the provider sent a stream event that is not JSON',
      type: 'upstream_error',
      code: 'malformed_stream',
    },
  };
}

/** The body ended before the vendor's end of stream (`why` says which); `usage` is what was counted. */
export function truncatedStream(why: string, usage?: Translated['usage']): Translated {
  const out: Translated = { chunks: [], content: false };
  if (usage !== undefined) out.usage = usage;
  out.error = { message: `the provider closed the stream ${why}`, type: 'upstream_error', code: 'stream_truncated' };
  return out;
}
