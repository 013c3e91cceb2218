import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, generateText, RetryError } from 'ai';

/**
 * The Vercel AI SDK's `maxRetries` as the thing under test: each client request becomes one
 * `generateText` on an OpenAI chat model, answered in the OpenAI shape with the usage the SDK
 * reports. Every retry and every wait between them is the SDK's own.
 */
export function aiSdkHandler(baseURL: string, apiKey: string, maxRetries = 2) {
  const openai = createOpenAI({ baseURL, apiKey });
  return async (request: Request): Promise<Response> => {
    const body = (await request.json()) as { messages: Array<{ role: 'user'; content: string }> };
    try {
      const r = await generateText({
        model: openai.chat('gpt-4o-mini'),
        messages: body.messages,
        maxOutputTokens: 32,
        maxRetries,
        abortSignal: request.signal,
      });
      return Response.json({
        id: r.response.id,
        object: 'chat.completion',
        model: r.response.modelId,
        choices: [{ index: 0, message: { role: 'assistant', content: r.text }, finish_reason: 'stop' }],
        usage: {
          prompt_tokens: r.usage.inputTokens,
          completion_tokens: r.usage.outputTokens,
          total_tokens: r.usage.totalTokens,
        },
      });
    } catch (error) {
      const last = RetryError.isInstance(error) ? error.lastError : error;
      if (!APICallError.isInstance(last) || last.statusCode === undefined) throw error;
      const wait = last.responseHeaders?.['retry-after'];
      return Response.json(
        { error: { message: last.message, type: 'upstream', code: null } },
        { status: last.statusCode, headers: wait ? { 'retry-after': wait } : {} },
      );
    }
  };
}
