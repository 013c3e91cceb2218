// Preload (`node --import ./test/helpers/log-imports.mjs ...`): prints `import: <url>` on stderr
// for every file module the process loads, so a test can read a command's import graph.
import { register } from 'node:module';

const hooks = `
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.startsWith('file:')) process.stderr.write('import: ' + resolved.url + '\\n');
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
