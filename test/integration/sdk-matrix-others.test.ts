import { sdkMatrix } from '../helpers/sdk-matrix.js';
import { BEDROCK_DEFAULT_HANDLER_CASE } from '../helpers/sdk-bedrock-case.js';
import { ANTHROPIC_CASE, GENAI_CASES, GROQ_CASE, MISTRAL_CASE } from '../helpers/sdk-other-cases.js';

for (const c of [ANTHROPIC_CASE, GROQ_CASE, MISTRAL_CASE, ...GENAI_CASES, BEDROCK_DEFAULT_HANDLER_CASE]) sdkMatrix(c);
