import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { expect } from 'vitest';
import { providerLine, type SdkCase, type SdkErrorView } from './sdk-matrix.js';

const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const KEY = 'AKIASIMBEDROCK0001';

// The official client with its default request handler (NodeHttp2Handler, HTTP/2 for every
// operation): only where to go and who it is, as a user's environment would say.
function client(origin: string, keyId = KEY, maxAttempts = 3): BedrockRuntimeClient {
  return new BedrockRuntimeClient({
    endpoint: `${origin}/bedrock`,
    region: 'us-east-1',
    credentials: { accessKeyId: keyId, secretAccessKey: 'sim-secret' },
    maxAttempts,
  });
}

/** AWS SDK v3 service exceptions: class name, `$metadata` status and the raw response's headers. */
function awsView(e: unknown): SdkErrorView {
  const err = e as {
    name: string;
    message: string;
    $metadata?: { httpStatusCode?: number };
    $response?: { headers?: Record<string, string> };
  };
  return {
    cls: err.name,
    status: err.$metadata?.httpStatusCode,
    header: (n) => err.$response?.headers?.[n.toLowerCase()],
    message: err.message,
  };
}

/** `@aws-sdk/client-bedrock-runtime` with its default handler, against the Bedrock profile. */
export const BEDROCK_DEFAULT_HANDLER_CASE: SdkCase = {
  sdk: '@aws-sdk/client-bedrock-runtime (default handler, h2c)',
  id: 'bedrock',
  provider: providerLine('bedrock', 'bedrock', MODEL, `${KEY}:sim-secret`),
  async plain(s, o) {
    const c = client(s.origin, o.key, o.maxRetries + 1);
    try {
      const out = await c.send(
        new ConverseCommand({
          modelId: o.model ?? MODEL,
          messages: o.malformed ? [] : [{ role: 'user', content: [{ text: 'hello' }] }],
        }),
      );
      return {
        text: out.output?.message?.content?.map((b) => b.text ?? '').join('') ?? '',
        inputTokens: out.usage?.inputTokens ?? -1,
        outputTokens: out.usage?.outputTokens ?? -1,
        finish: out.stopReason ?? '',
      };
    } finally {
      c.destroy();
    }
  },
  async stream(s) {
    const c = client(s.origin);
    try {
      const out = await c.send(
        new ConverseStreamCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'hello' }] }] }),
      );
      let text = '';
      let finish = '';
      let usage = { inputTokens: -1, outputTokens: -1 };
      for await (const event of out.stream!) {
        text += event.contentBlockDelta?.delta?.text ?? '';
        finish = event.messageStop?.stopReason ?? finish;
        if (event.metadata?.usage)
          usage = {
            inputTokens: event.metadata.usage.inputTokens ?? -1,
            outputTokens: event.metadata.usage.outputTokens ?? -1,
          };
      }
      return { text, ...usage, finish };
    } finally {
      c.destroy();
    }
  },
  view: awsView,
  finish: 'end_turn',
  rateLimit: {
    cls: 'ThrottlingException',
    evidence: (e) => expect(e.header('x-amzn-errortype')).toMatch(/^ThrottlingException:/),
  },
  // Standard retry mode: its own backoff for throttling, whatever Retry-After says.
  retry: {
    kind: 'ignores',
    hint: { form: 'seconds', after: '30s' },
    announcedMs: 30_000,
    retries: { maxRetries: 1 },
  },
  overload: { status: 503, cls: 'ServiceUnavailableException' },
  unknownModel: { status: 400, cls: 'ValidationException', names: false },
  badKey: { status: 403, cls: 'UnrecognizedClientException' },
  malformed: { status: 400, cls: 'ValidationException' },
};
