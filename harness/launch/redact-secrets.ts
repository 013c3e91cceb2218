const SECRET_NAME = /(key|token|secret|passw(or)?d|pwd|credential|auth|cookie|session)/i;
const MIN_SECRET_CHARS = 8;
const MARK = '[REDACTED]';
/** One shell word: quoted ("…" with escapes, '…') or bare (up to a space or an operator). */
const WORD = `(?:"(?:[^"\\\\]|\\\\.)*"|'[^']*'|(?:[^\\s'"\\\\;&|()<>]|\\\\.)+)`;
/** A value that only names a variable (`$OPENAI_API_KEY`, `"${TOKEN}"`) shows no secret. */
const VARIABLE_ONLY = /^(["']?)\$(\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)\1$/;

/** Values of `env` whose names say they hold a secret (`OPENAI_API_KEY`, `ROUTER_TOKEN`). */
export function secretValues(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(env)
    .filter(([name, value]) => SECRET_NAME.test(name) && value !== undefined && value.length >= MIN_SECRET_CHARS)
    .map(([, value]) => value!);
}

function removeValues(text: string, secrets: Iterable<string>): string {
  let out = text;
  const values = [...new Set([...secrets].filter((s) => s.length >= MIN_SECRET_CHARS))].sort(
    (a, b) => b.length - a.length,
  );
  for (const v of values) if (out.includes(v)) out = out.split(v).join(MARK);
  return out;
}

/** Flags whose names say they carry a secret (`--api-key v`, `--master_key=v`), Bearer tokens, URL credentials. */
function removeForms(text: string): string {
  return text
    .replace(new RegExp(`(--?[A-Za-z][A-Za-z0-9_-]*)(=|\\s+)${WORD}`, 'g'), (m, flag: string, sep: string) =>
      SECRET_NAME.test(flag) ? `${flag}${sep}${MARK}` : m,
    )
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g, `$1 ${MARK}`)
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@'"]+@/gi, `$1${MARK}@`);
}

/**
 * Removes secrets from text that a report or a terminal will show (a router's output): every
 * value in `secrets` (the scenario's keys, secret-named variables), `NAME=value` where the name
 * says it is a secret, `--api-key value` style flags, `Bearer` tokens and URL credentials.
 */
export function redactSecrets(text: string, secrets: Iterable<string> = []): string {
  return removeForms(
    removeValues(text, secrets).replace(new RegExp(`\\b([A-Za-z_][A-Za-z0-9_]*)=(${WORD})`, 'g'), (m, name: string) =>
      SECRET_NAME.test(name) ? `${name}=${MARK}` : m,
    ),
  );
}

/** Keeps a header's name and hides its value: `x-api-key: sk-…` → `x-api-key: [REDACTED]`, quotes kept. */
function hideHeaderValue(word: string): string {
  const quote = word[0] === '"' || word[0] === "'" ? word[0] : '';
  const inner = quote ? word.slice(1, -1) : word;
  const colon = inner.indexOf(':');
  if (colon < 0) return word;
  const value = inner.slice(colon + 1).trim();
  if (value === '' || VARIABLE_ONLY.test(value)) return word;
  return `${quote}${inner.slice(0, colon + 1)}${inner[colon + 1] === ' ' ? ' ' : ''}${MARK}${quote}`;
}

/**
 * A router command as a report or a terminal may show it. Stricter than `redactSecrets`: a
 * command's secrets need not have secret-like names (`DB_PASS=…`, `SESSION=…`, `-H "x-goog: …"`),
 * so whatever is not plainly safe goes: every environment assignment's value, every header value
 * after `-H`/`--header`, URL credentials, secret-named flags' values, Bearer tokens and the
 * run's known secret values. A value that only names a variable (`$OPENAI_API_KEY`) stays.
 * `redacted` says whether anything was removed, for the report to say so.
 */
export function redactCommand(command: string, secrets: Iterable<string> = []): { shown: string; redacted: boolean } {
  const shown = removeForms(
    removeValues(command, secrets)
      .replace(
        new RegExp(`(^|[\\s;&|(])([A-Za-z_][A-Za-z0-9_]*)=(${WORD})`, 'g'),
        (m, before: string, name: string, value: string) =>
          VARIABLE_ONLY.test(value) ? m : `${before}${name}=${MARK}`,
      )
      .replace(
        new RegExp(`(^|\\s)(-H|--header)(=|\\s+)(${WORD})`, 'g'),
        (_m, before: string, flag: string, sep: string, word: string) =>
          `${before}${flag}${sep}${hideHeaderValue(word)}`,
      ),
  );
  return { shown, redacted: shown !== command };
}
