import { LineCounter, parseDocument, visit, type Document } from 'yaml';
import type { ScenarioIssue } from './issue.js';

/** Largest scenario text read, in bytes: far above any hand-written file, far below what exhausts memory. */
export const MAX_YAML_BYTES = 1024 * 1024;
/** Most values a document may expand to once its aliases are resolved. */
export const MAX_YAML_VALUES = 200_000;
/** Deepest nesting of collections a document may have. */
export const MAX_YAML_DEPTH = 64;
// yaml's own measure of alias expansion (uses times the size of what is aliased); its default, 100,
// refuses a legitimate file that uses one anchor 150 times.
const MAX_ALIAS_COUNT = 10_000;

/** A YAML document read within bounds, or the issues that stopped it (codes under `prefix`). */
export type YamlRead =
  { ok: true; doc: Document; lc: LineCounter; value: unknown } | { ok: false; issues: ScenarioIssue[] };

/** Counts values and depth of a plain JS tree without recursion, stopping at the bounds. */
function measure(value: unknown): 'too-many' | 'too-deep' | undefined {
  const stack: Array<[unknown, number]> = [[value, 1]];
  let seen = 0;
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (++seen > MAX_YAML_VALUES) return 'too-many';
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_YAML_DEPTH) return 'too-deep';
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return undefined;
}

function firstAlias(doc: Document, lc: LineCounter): { line: number; col: number } {
  let at = { line: 1, col: 1 };
  visit(doc, {
    Alias(_key, node) {
      if (node.range) at = lc.linePos(node.range[0]);
      return visit.BREAK;
    },
  });
  return at;
}

/**
 * Parses YAML text into a document and its plain value, refusing (as located issues rather than
 * exceptions) what would exhaust the process: text over `MAX_YAML_BYTES`, alias bombs, and
 * documents that expand past `MAX_YAML_VALUES` values or nest deeper than `MAX_YAML_DEPTH`.
 */
export function readYaml(text: string, prefix: 'SCENARIO' | 'CONFIG' = 'SCENARIO'): YamlRead {
  const fail = (code: string, message: string, at = { line: 1, col: 1 }): YamlRead => ({
    ok: false,
    issues: [{ code: `${prefix}_${code}`, path: [], message, ...at }],
  });
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_YAML_BYTES)
    return fail('TOO_LARGE', `the text is ${bytes} bytes; at most ${MAX_YAML_BYTES} (1 MiB) are read`);
  const lc = new LineCounter();
  let doc: Document;
  try {
    doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  } catch (error) {
    if (error instanceof RangeError)
      return fail('TOO_DEEP', `the document is nested too deeply to read (at most ${MAX_YAML_DEPTH} levels)`);
    throw error;
  }
  // yaml reports running out of stack on deep nesting as a syntax error of its own.
  const overflow = doc.errors.find((e) => /call stack/i.test(e.message));
  if (overflow)
    return fail(
      'TOO_DEEP',
      `the document is nested too deeply to read (at most ${MAX_YAML_DEPTH} levels)`,
      lc.linePos(overflow.pos[0]),
    );
  if (doc.errors.length > 0) {
    return {
      ok: false,
      issues: doc.errors.map((e) => ({
        code: `${prefix}_YAML_SYNTAX`,
        path: [],
        message: e.message.split('\n')[0]!,
        ...lc.linePos(e.pos[0]),
      })),
    };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    if (error instanceof RangeError)
      return fail('TOO_DEEP', `the document is nested too deeply to read (at most ${MAX_YAML_DEPTH} levels)`);
    if (error instanceof ReferenceError) {
      const message = /Excessive alias/.test(error.message)
        ? 'its aliases expand too far (an alias bomb?); write the values out or use fewer aliases of large anchors'
        : error.message;
      return fail('YAML_ALIAS', message, firstAlias(doc, lc));
    }
    throw error;
  }
  const size = measure(value);
  if (size === 'too-many')
    return fail(
      'TOO_LARGE',
      `the document expands to more than ${MAX_YAML_VALUES} values${hasAlias(doc) ? ' once its aliases are resolved' : ''}`,
      hasAlias(doc) ? firstAlias(doc, lc) : undefined,
    );
  if (size === 'too-deep') return fail('TOO_DEEP', `the document nests deeper than ${MAX_YAML_DEPTH} levels`);
  return { ok: true, doc, lc, value };
}

function hasAlias(doc: Document): boolean {
  let found = false;
  visit(doc, {
    Alias() {
      found = true;
      return visit.BREAK;
    },
  });
  return found;
}
