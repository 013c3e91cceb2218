import { OPENAI_SDK_CASES } from '../helpers/sdk-openai-cases.js';
import { sdkMatrix } from '../helpers/sdk-matrix.js';

for (const c of OPENAI_SDK_CASES) sdkMatrix(c);
