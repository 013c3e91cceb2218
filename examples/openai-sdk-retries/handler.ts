import { AzureOpenAI, APIError } from 'openai';

/**
 * The openai SDK's own retries as the thing under test: each client request becomes one
 * `chat.completions.create` on an AzureOpenAI client with `maxRetries` (the SDK's default is 2),
 * its answer or its final error handed back. Every retry and every backoff sleep is the SDK's.
 */
export function openaiSdkHandler(endpoint: string, apiKey: string, maxRetries = 2) {
  const client = new AzureOpenAI({ endpoint, apiKey, apiVersion: '2024-10-21', maxRetries });
  return async (request: Request): Promise<Response> => {
    const body = (await request.json()) as { model: string; messages: Array<{ role: 'user'; content: string }> };
    try {
      const completion = await client.chat.completions.create(
        { model: 'gpt-4o-mini', messages: body.messages, max_tokens: 32 },
        { signal: request.signal },
      );
      return Response.json(completion);
    } catch (error) {
      if (!(error instanceof APIError) || error.status === undefined) throw error;
      const headers: Record<string, string> = {};
      const wait = error.headers?.get('retry-after');
      if (wait) headers['retry-after'] = wait;
      return Response.json({ error: error.error ?? { message: error.message } }, { status: error.status, headers });
    }
  };
}
