/**
 * What a provider said about a request it refused, fit to pass on to the client: the message of its
 * error body (`error.message` as OpenAI, Anthropic and Gemini write it; Bedrock's `message`), never
 * the body whole, which names the upstream's request id and its own error type. A body that is not
 * such JSON is passed on as text, cut at 500 characters.
 */
export function providerMessage(bodyText: string): string {
  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    return bodyText.slice(0, 500);
  }
  const body = Array.isArray(json) ? (json[0] as unknown) : json;
  if (body !== null && typeof body === 'object') {
    const { error, message, Message } = body as Record<string, unknown>;
    const inner = error !== null && typeof error === 'object' ? (error as Record<string, unknown>).message : undefined;
    for (const m of [inner, message, Message]) if (typeof m === 'string') return m.slice(0, 2000);
  }
  return 'the request was refused as invalid';
}
