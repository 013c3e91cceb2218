import { isMap, isPair, isScalar, type Document, type LineCounter, type Node } from 'yaml';

/**
 * Finds the line and column of `path` in a parsed YAML document: the node itself when it exists,
 * else its nearest existing ancestor. With `key`, points at that key of the map at `path`.
 */
export function locate(doc: Document, lc: LineCounter, path: ReadonlyArray<string | number>, key?: string): { line: number; col: number } {
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
