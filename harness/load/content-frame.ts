// The harness judges routers and never imports one: this mirrors router/adapters/content-chunk.ts.
// A JSON string token, exactly as RFC 8259 defines it: no raw control character, only the escapes
// JSON allows. Anything this matches JSON.parse accepts, and the reverse.
const STRING = String.raw`"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"`;

// The frame nearly every chunk of a stream is: one choice (index 0) carrying only `content`, no
// finish reason, no usage, no error, in one fixed member order with no whitespace (as OpenAI, its
// compatible vendors and the reference router write it). Any other text, however valid, does not match.
const CONTENT_FRAME = new RegExp(
  String.raw`^\{"id":${STRING},"object":"chat\.completion\.chunk","created":(?:0|[1-9][0-9]*),"model":${STRING}` +
    String.raw`(?:,"service_tier":${STRING})?(?:,"system_fingerprint":(?:${STRING}|null))?` +
    String.raw`,"choices":\[\{"index":0,"delta":\{"content":(${STRING})\}(?:,"logprobs":null)?,"finish_reason":null\}\]` +
    String.raw`(?:,"usage":null)?\}$`,
);

/**
 * The content of a stream frame that carries nothing else, or undefined for any other text (which
 * the caller parses whole). Exact, not a guess: a frame that matches is valid JSON with each member
 * once, and parses to that one choice, that content, a null finish reason and no usage or error.
 * Spares the client a JSON.parse per frame (about a microsecond each); escapes are decoded by
 * JSON.parse of the string token alone.
 */
export function contentFrameText(data: string): string | undefined {
  const token = CONTENT_FRAME.exec(data)?.[1];
  if (token === undefined) return undefined;
  return token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
}
