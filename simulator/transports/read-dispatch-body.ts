const decoder = () => new TextDecoder();

/**
 * A request body as undici hands it to a dispatcher (a string, bytes, a Node stream or any async
 * iterable, a Blob or FormData, or nothing), read whole as text, as the msw handlers read theirs.
 */
export async function readDispatchBody(body: unknown): Promise<string> {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return decoder().decode(body);
  if (typeof body === 'object' && Symbol.asyncIterator in body) {
    const text = decoder();
    let out = '';
    for await (const chunk of body as AsyncIterable<unknown>)
      out += typeof chunk === 'string' ? chunk : text.decode(chunk as Uint8Array, { stream: true });
    return out + text.decode();
  }
  // Blob, FormData, URLSearchParams, a web ReadableStream: encoded as fetch would send them.
  return new Response(body as BodyInit).text();
}
