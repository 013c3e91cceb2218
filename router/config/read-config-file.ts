import { open } from 'node:fs/promises';
import type { ConfigIssue } from './parse-config.js';

const MAX_BYTES = 1024 * 1024;

function position(text: string, index: number): { line: number; col: number } {
  const before = text.slice(0, index).split('\n');
  return { line: before.length, col: before[before.length - 1]!.length + 1 };
}

/**
 * Reads a config file as UTF-8 text, at most 1 MiB of it (a device such as /dev/zero or a huge
 * file is refused without being read whole). UTF-16, binary and non-UTF-8 files are problems a
 * person can fix, reported with their position rather than as garbled YAML errors.
 */
export async function readConfigFile(
  file: string,
): Promise<{ ok: true; text: string } | { ok: false; issue: ConfigIssue }> {
  const problem = (code: string, message: string, at = { line: 1, col: 1 }) => ({
    ok: false as const,
    issue: { code, path: [], message, ...at },
  });
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    return problem(
      'CONFIG_FILE_UNREADABLE',
      `cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  let bytes: Buffer;
  try {
    const buffer = Buffer.alloc(MAX_BYTES + 1);
    let size = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, size, buffer.length - size, null);
      if (bytesRead === 0) break;
      size += bytesRead;
      if (size > MAX_BYTES)
        return problem('CONFIG_TOO_LARGE', `the file is over ${MAX_BYTES} bytes (1 MiB); a config is at most that`);
    }
    bytes = buffer.subarray(0, size);
  } catch (error) {
    return problem(
      'CONFIG_FILE_UNREADABLE',
      `cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  } finally {
    await handle.close();
  }
  const encoding = (message: string, at?: { line: number; col: number }) =>
    problem('CONFIG_FILE_ENCODING', message, at);
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    return encoding('the file is UTF-16 or UTF-32 (it starts with a byte order mark); save it as UTF-8');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const lossy = new TextDecoder('utf-8').decode(bytes);
    return encoding(
      'the file is not UTF-8 text (an invalid byte here); save it as UTF-8',
      position(lossy, lossy.indexOf('\uFFFD')),
    );
  }
  const nul = text.indexOf('\u0000');
  if (nul >= 0)
    return encoding(
      'the file holds NUL bytes: it is binary, or UTF-16 without a byte order mark; save it as UTF-8 text',
      position(text, nul),
    );
  return { ok: true, text };
}
