import { GoogleGenAI } from '@google/genai';
import OpenAI, { AzureOpenAI } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { serve, type Served } from '../helpers/serve.js';

// Each provider serves a chat model and an embedding model; asking one for the other's work is refused.
const KINDS = `
version: 1
name: sdk-model-kinds
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini, text-embedding-3-small], keys: [{ id: main, value: sk-sim-openai }] }
  - { id: azure, vendor: azure-openai, models: [gpt-4o-mini, text-embedding-3-small], keys: [{ id: main, value: sk-sim-azure }] }
  - { id: gemini, vendor: gemini, models: [gemini-2.5-flash, gemini-embedding-001], keys: [{ id: main, value: sim-gemini }] }
`;

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const hi = [{ role: 'user' as const, content: 'hi' }];

describe('a model asked for the other kind of work, through the official clients', () => {
  it('openai: chat on an embedding model is a 404, embeddings on a chat model a 403', async () => {
    served = await serve(KINDS);
    const client = new OpenAI({ baseURL: `${served.origin}/openai/v1`, apiKey: 'sk-sim-openai', maxRetries: 0 });
    const chat = await client.chat.completions
      .create({ model: 'text-embedding-3-small', messages: hi })
      .catch((x: unknown) => x);
    expect(chat).toBeInstanceOf(OpenAI.NotFoundError);
    expect((chat as InstanceType<typeof OpenAI.APIError>).error).toEqual({
      message:
        'This is not a chat model and thus not supported in the v1/chat/completions endpoint. Did you mean to use v1/completions?',
      type: 'invalid_request_error',
      param: 'model',
      code: null,
    });
    const vectors = await client.embeddings.create({ model: 'gpt-4o-mini', input: 'hi' }).catch((x: unknown) => x);
    expect(vectors).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((vectors as InstanceType<typeof OpenAI.APIError>).message).toBe(
      '403 You are not allowed to generate embeddings from this model',
    );
    // Each kind still does its own work.
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi });
    await client.embeddings.create({ model: 'text-embedding-3-small', input: 'hi' });
    expect([...served.sim.ledger.rowsIterator()].map((r) => [r.endpoint, r.status])).toEqual([
      ['chat', 404],
      ['embeddings', 403],
      ['chat', 200],
      ['embeddings', 200],
    ]);
  });

  it('azure: both directions are a 400 OperationNotSupported naming the operation', async () => {
    served = await serve(KINDS);
    const azure = new AzureOpenAI({
      endpoint: `${served.origin}/azure`,
      apiKey: 'sk-sim-azure',
      apiVersion: '2024-10-21',
      maxRetries: 0,
    });
    const chat = await azure.chat.completions
      .create({ model: 'text-embedding-3-small', messages: hi })
      .catch((x: unknown) => x);
    expect(chat).toBeInstanceOf(OpenAI.BadRequestError);
    expect((chat as InstanceType<typeof OpenAI.APIError>).code).toBe('OperationNotSupported');
    expect((chat as Error).message).toMatch(
      /^400 The chatCompletion operation does not work with the specified model, text-embedding-3-small\. Please choose different model/,
    );
    const vectors = await azure.embeddings.create({ model: 'gpt-4o-mini', input: 'hi' }).catch((x: unknown) => x);
    expect(vectors).toBeInstanceOf(OpenAI.BadRequestError);
    expect((vectors as Error).message).toMatch(
      /^400 The embeddings operation does not work with the specified model, gpt-4o-mini\./,
    );
  });

  it('gemini: the method the model does not support is a 404 NOT_FOUND', async () => {
    served = await serve(KINDS);
    const ai = new GoogleGenAI({ apiKey: 'sim-gemini', httpOptions: { baseUrl: `${served.origin}/gemini` } });
    const chat = await ai.models
      .generateContent({ model: 'gemini-embedding-001', contents: 'hi' })
      .catch((x: unknown) => x);
    expect(chat).toMatchObject({ status: 404 });
    expect((chat as Error).message).toContain(
      'models/gemini-embedding-001 is not found for API version v1beta, or is not supported for generateContent.',
    );
    const vectors = await ai.models
      .embedContent({ model: 'gemini-2.5-flash', contents: 'hi' })
      .catch((x: unknown) => x);
    expect(vectors).toMatchObject({ status: 404 });
    expect((vectors as Error).message).toContain(
      'models/gemini-2.5-flash is not found for API version v1beta, or is not supported for embedContent.',
    );
    const ok = await ai.models.embedContent({ model: 'gemini-embedding-001', contents: 'hi' });
    expect(ok.embeddings?.[0]?.values).toHaveLength(3072);
  });
});
