import { open } from 'node:fs/promises';
import type { ScenarioIssue } from './issue.js';
import { MAX_YAML_BYTES } from './read-yaml.js';

/** A text file read within bounds and decoded as UTF-8, or the one issue that stopped it. */
export type TextFileRead = { ok: true; text: string } | { ok: false; issue: ScenarioIssue };

function position(text: string, index: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, col: index - start + 1 };
}

/**
 * Decodes a file's bytes as UTF-8 text, telling apart what a person can fix: UTF-16 or UTF-32
 * (a byte order mark), binary content (NUL bytes), and bytes that are not UTF-8, located.
 */
export function decodeText(bytes: Uint8Array, prefix: 'SCENARIO' | 'CONFIG' = 'SCENARIO'): TextFileRead {
  const issue = (message: string, at = { line: 1, col: 1 }): TextFileRead => ({
    ok: false,
    issue: { code: `${prefix}_FILE_ENCODING`, path: [], message, ...at },
  });
  const [a, b] = [bytes[0], bytes[1]];
  if ((a === 0xff && b === 0xfe) || (a === 0xfe && b === 0xff) || (a === 0 && b === 0 && bytes[2] === 0xfe))
    return issue('the file is UTF-16 or UTF-32 (it starts with a byte order mark); save it as UTF-8');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    const lossy = new TextDecoder('utf-8').decode(bytes);
    return issue(
      'the file is not UTF-8 text (an invalid byte here); save it as UTF-8',
      position(lossy, lossy.indexOf('\uFFFD')),
    );
  }
  const nul = text.indexOf('\u0000');
  if (nul >= 0)
    return issue(
      'the file holds NUL bytes: it is binary, or UTF-16 without a byte order mark; save it as UTF-8 text',
      position(text, nul),
    );
  return { ok: true, text };
}

/**
 * Reads at most `maxBytes` of a file (a device such as /dev/zero or a huge file is refused
 * without being read whole) and decodes it with `decodeText`.
 */
export async function readTextFile(
  file: string,
  prefix: 'SCENARIO' | 'CONFIG' = 'SCENARIO',
  maxBytes = MAX_YAML_BYTES,
): Promise<TextFileRead> {
  const unreadable = (code: string | undefined): TextFileRead => ({
    ok: false,
    issue: {
      code: `${prefix}_FILE_UNREADABLE`,
      path: [],
      message: `cannot read the file (${code ?? 'error'})`,
      line: 1,
      col: 1,
    },
  });
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    return unreadable((error as NodeJS.ErrnoException).code);
  }
  try {
    const buffer = Buffer.alloc(maxBytes + 1);
    let size = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, size, buffer.length - size, null);
      if (bytesRead === 0) break;
      size += bytesRead;
      if (size > maxBytes)
        return {
          ok: false,
          issue: {
            code: `${prefix}_TOO_LARGE`,
            path: [],
            message: `the file is over ${maxBytes} bytes (1 MiB); a ${prefix === 'CONFIG' ? 'config' : 'scenario'} is at most that`,
            line: 1,
            col: 1,
          },
        };
    }
    return decodeText(buffer.subarray(0, size), prefix);
  } catch (error) {
    return unreadable((error as NodeJS.ErrnoException).code);
  } finally {
    await handle.close();
  }
}
