/** The Claude model the Bedrock tests ask for: 3.5 Haiku, which caches prefixes of 2048 tokens or more. */
export const BEDROCK_MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';
/** The access key id of the scenario's `bedrock` provider. */
export const BEDROCK_KEY_ID = 'AKIASIMBEDROCK0001';
/** The secret access key that signs for {@link BEDROCK_KEY_ID} (and any other key of these scenarios). */
export const BEDROCK_SECRET = 'sim-secret';

/**
 * A scenario whose provider `bedrock` serves {@link BEDROCK_MODEL} with one key, `limit` requests
 * a minute and `completionTokens` tokens an answer; `more` is YAML of further providers.
 */
export function bedrockScenario(name: string, limit: number, completionTokens: number, more = ''): string {
  return `
version: 1
name: ${name}
providers:
  - id: bedrock
    vendor: bedrock
    models: ["${BEDROCK_MODEL}"]
    keys: [{ id: main, value: "${BEDROCK_KEY_ID}:${BEDROCK_SECRET}" }]
    quotas: [{ metric: requests, limit: ${limit}, per: 1m }]
    latency: { completionTokens: ${completionTokens} }
${more}`;
}
