import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A clause as docs/spec.md writes it. */
export interface WrittenClause {
  id: string;
  title: string;
  /** The strongest RFC 2119 word in its text. */
  level: 'MUST' | 'SHOULD' | null;
  judgedBy: string | null;
  forcedBy: string | null;
  brokenRouter: string | null;
  sources: string | null;
}

export const SPEC_FILE = join(import.meta.dirname, '../../docs/spec.md');

const field = (body: string, name: string): string | null =>
  new RegExp(`^- ${name}: (.+)$`, 'm').exec(body)?.[1]?.trim() ?? null;
const code = (v: string | null): string | null => (v === null ? null : (/^`([^`]+)`$/.exec(v)?.[1] ?? null));

/** The clauses of docs/spec.md (`### ID. Title` and the bullet fields under it), in order. */
export function readSpec(text = readFileSync(SPEC_FILE, 'utf8')): WrittenClause[] {
  const heads = [...text.matchAll(/^### ([A-Z]+-\d+)\. (.+)$/gm)];
  return heads.map((h, i) => {
    const body = text.slice(h.index + h[0].length, heads[i + 1]?.index ?? text.length).split(/^## /m)[0]!;
    const prose = body.replace(/^- .*$/gm, '');
    return {
      id: h[1]!,
      title: h[2]!.trim(),
      level: /\bMUST\b/.test(prose) ? 'MUST' : /\bSHOULD\b/.test(prose) ? 'SHOULD' : null,
      judgedBy: code(field(body, 'Judged by')),
      forcedBy: code(field(body, 'Forced by')),
      brokenRouter: code(field(body, 'Broken router')),
      sources: field(body, 'Sources'),
    };
  });
}
