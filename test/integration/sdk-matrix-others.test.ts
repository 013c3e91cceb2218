import { sdkMatrix } from '../helpers/sdk-matrix.js';
import { ANTHROPIC_CASE, GENAI_CASES, GROQ_CASE, MISTRAL_CASE } from '../helpers/sdk-other-cases.js';

for (const c of [ANTHROPIC_CASE, GROQ_CASE, MISTRAL_CASE, ...GENAI_CASES]) sdkMatrix(c);
