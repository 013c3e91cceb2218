/** throttlelab's version, as reports record it (kept equal to package.json by a test). */
export const TOOL_VERSION = '0.1.0';
