import { AI_SDK_CASES } from '../helpers/sdk-ai-cases.js';
import { sdkMatrix } from '../helpers/sdk-matrix.js';

for (const c of AI_SDK_CASES) sdkMatrix(c);
