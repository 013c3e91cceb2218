/** One problem in a scenario or config file, located. */
export interface ScenarioIssue {
  code: string;
  /** Path into the document, e.g. `['providers', 1, 'quotas', 0, 'per']`. */
  path: Array<string | number>;
  message: string;
  line: number;
  col: number;
}

/** Renders a path as `providers[1].quotas[0].per`. */
export function formatPath(path: ReadonlyArray<string | number>): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out ? `.${part}` : part;
  return out || '(root)';
}

/** Renders issues as `file:line:col CODE path: message`, sorted by position. */
export function formatIssues(file: string, issues: readonly ScenarioIssue[]): string {
  return [...issues]
    .sort((a, b) => a.line - b.line || a.col - b.col)
    .map((i) => `${file}:${i.line}:${i.col} ${i.code} ${formatPath(i.path)}: ${i.message}`)
    .join('\n');
}
