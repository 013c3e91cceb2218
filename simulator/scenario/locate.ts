import { isMap, isPair, isScalar, LineCounter, parseDocument, type Document, type Node } from 'yaml';

/**
 * Finds the line and column of `path` in a parsed YAML document: the node itself when it exists,
 * else its nearest existing ancestor. With `key`, points at that key of the map at `path`.
 */
export function locate(
  doc: Document,
  lc: LineCounter,
  path: ReadonlyArray<string | number>,
  key?: string,
): { line: number; col: number } {
  if (key !== undefined) {
    const map = doc.getIn(path, true);
    if (isMap(map)) {
      const pair = map.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === key);
      const keyNode = pair?.key as Node | undefined;
      if (keyNode?.range) return lc.linePos(keyNode.range[0]);
    }
  }
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : (doc.getIn(path.slice(0, n), true) as Node | undefined);
    // A missing field resolves to the map that lacks it.
    if (node && typeof node === 'object' && 'range' in node && node.range) return lc.linePos(node.range[0]);
  }
  return { line: 1, col: 1 };
}

/**
 * Locates issues found outside the scenario parser (a section another package validates, the
 * router's config file). An issue that already has a position (a YAML syntax error) keeps it.
 */
export function locateInYaml(
  text: string,
  issues: ReadonlyArray<{
    code: string;
    path: Array<string | number>;
    message: string;
    key?: string;
    line?: number;
    col?: number;
  }>,
): Array<{ code: string; path: Array<string | number>; message: string; line: number; col: number }> {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc });
  return issues.map((i) => ({
    code: i.code,
    path: i.key ? [...i.path, i.key] : i.path,
    message: i.message,
    ...(i.line !== undefined && i.col !== undefined ? { line: i.line, col: i.col } : locate(doc, lc, i.path, i.key)),
  }));
}
