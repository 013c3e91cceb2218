import { LineCounter, parseDocument, type Document } from 'yaml';

// The same bounds as the simulator's scenario reader (the router and the simulator share no code;
// see docs/decisions/no-shared-code.md): a config is small, hand-written text.
const MAX_BYTES = 1024 * 1024;
const MAX_VALUES = 200_000;
const MAX_DEPTH = 64;
const MAX_ALIAS_COUNT = 10_000;

/** A problem that stopped a config from being read at all, with its position. */
export interface YamlProblem {
  code: string;
  message: string;
  line: number;
  col: number;
}

function measure(value: unknown): 'too-many' | 'too-deep' | undefined {
  const stack: Array<[unknown, number]> = [[value, 1]];
  let seen = 0;
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (++seen > MAX_VALUES) return 'too-many';
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_DEPTH) return 'too-deep';
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return undefined;
}

/**
 * Parses config YAML within bounds: over 1 MiB, an alias bomb, more than 200,000 values once
 * aliases are resolved, or nesting past 64 levels is a located problem, never an exception.
 */
export function readConfigYaml(text: string): { ok: true; value: unknown } | { ok: false; problems: YamlProblem[] } {
  const fail = (code: string, message: string) => ({
    ok: false as const,
    problems: [{ code: `CONFIG_${code}`, message, line: 1, col: 1 }],
  });
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_BYTES) return fail('TOO_LARGE', `the text is ${bytes} bytes; at most ${MAX_BYTES} (1 MiB) are read`);
  const lc = new LineCounter();
  let doc: Document;
  let value: unknown;
  try {
    doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
    if (doc.errors.some((e) => /call stack/i.test(e.message)))
      return fail('TOO_DEEP', `nested too deeply to read (at most ${MAX_DEPTH} levels)`);
    if (doc.errors.length > 0)
      return {
        ok: false,
        problems: doc.errors.map((e) => ({
          code: 'CONFIG_YAML_SYNTAX',
          message: e.message.split('\n')[0]!,
          ...lc.linePos(e.pos[0]),
        })),
      };
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    if (error instanceof RangeError) return fail('TOO_DEEP', `nested too deeply to read (at most ${MAX_DEPTH} levels)`);
    if (error instanceof ReferenceError)
      return fail(
        'YAML_ALIAS',
        /Excessive alias/.test(error.message) ? 'its aliases expand too far (an alias bomb?)' : error.message,
      );
    throw error;
  }
  const size = measure(value);
  if (size === 'too-many') return fail('TOO_LARGE', `expands to more than ${MAX_VALUES} values`);
  if (size === 'too-deep') return fail('TOO_DEEP', `nests deeper than ${MAX_DEPTH} levels`);
  return { ok: true, value };
}
