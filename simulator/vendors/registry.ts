import { anthropicProfile } from './anthropic.js';
import { bedrockProfile } from './bedrock.js';
import { cerebrasProfile } from './cerebras.js';
import { openrouterProfile } from './openrouter.js';
import { togetherProfile } from './together.js';
import { vertexAIProfile } from './vertex-ai.js';
import { xaiProfile } from './xai.js';
import { azureOpenAIProfile } from './azure-openai.js';
import { deepseekProfile } from './deepseek.js';
import { geminiProfile } from './gemini.js';
import { groqProfile } from './groq.js';
import { mistralProfile } from './mistral.js';
import { openaiProfile } from './openai.js';
import { ratelimitDraftProfile } from './ratelimit-draft.js';
import type { VendorId, VendorProfile } from './types.js';

/** Every vendor profile, by id. */
export const VENDORS: Readonly<Record<VendorId, VendorProfile>> = {
  openai: openaiProfile,
  'azure-openai': azureOpenAIProfile,
  anthropic: anthropicProfile,
  gemini: geminiProfile,
  groq: groqProfile,
  mistral: mistralProfile,
  deepseek: deepseekProfile,
  'ratelimit-draft': ratelimitDraftProfile,
  bedrock: bedrockProfile,
  'vertex-ai': vertexAIProfile,
  openrouter: openrouterProfile,
  cerebras: cerebrasProfile,
  together: togetherProfile,
  xai: xaiProfile,
};

/** The vendor ids, in documentation order. */
export const VENDOR_IDS = Object.keys(VENDORS) as VendorId[];
