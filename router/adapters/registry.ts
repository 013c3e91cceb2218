import type { VendorKind } from '../core/types.js';
import type { ProviderAdapter } from './adapter.js';
import { anthropicAdapter } from './anthropic.js';
import { bedrockAdapter } from './bedrock.js';
import { geminiAdapter } from './gemini.js';
import { createOpenAICompatibleAdapter } from './openai-compatible.js';
import { vertexAIAdapter } from './vertex-ai.js';

/** The adapter for each vendor kind. */
export const ADAPTERS: Readonly<Record<VendorKind, ProviderAdapter>> = {
  openai: createOpenAICompatibleAdapter('openai'),
  'azure-openai': createOpenAICompatibleAdapter('azure-openai'),
  groq: createOpenAICompatibleAdapter('groq'),
  mistral: createOpenAICompatibleAdapter('mistral'),
  deepseek: createOpenAICompatibleAdapter('deepseek'),
  'openai-compatible': createOpenAICompatibleAdapter('openai-compatible'),
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
  'vertex-ai': vertexAIAdapter,
  bedrock: bedrockAdapter,
  openrouter: createOpenAICompatibleAdapter('openrouter'),
  cerebras: createOpenAICompatibleAdapter('cerebras'),
  together: createOpenAICompatibleAdapter('together'),
  xai: createOpenAICompatibleAdapter('xai'),
};
