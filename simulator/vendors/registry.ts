import { anthropicProfile } from './anthropic.js';
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
};

/** The vendor ids, in documentation order. */
export const VENDOR_IDS = Object.keys(VENDORS) as VendorId[];
