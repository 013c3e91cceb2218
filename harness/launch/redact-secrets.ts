const SECRET_NAME = /(key|token|secret|passw(or)?d|pwd|credential|auth)/i;
const MIN_SECRET_CHARS = 8;

/** Values of `env` whose names say they hold a secret (`OPENAI_API_KEY`, `ROUTER_TOKEN`). */
export function secretValues(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(env)
    .filter(([name, value]) => SECRET_NAME.test(name) && value !== undefined && value.length >= MIN_SECRET_CHARS)
    .map(([, value]) => value!);
}

/**
 * Removes secrets from text that a report or a terminal will show (a router command, its output):
 * every value in `secrets` (the scenario's keys, secret-named variables), `NAME=value` where the
 * name says it is a secret, `--api-key value` style flags, `Bearer` tokens and URL passwords.
 */
export function redactSecrets(text: string, secrets: Iterable<string> = []): string {
  let out = text;
  const values = [...new Set([...secrets].filter((s) => s.length >= MIN_SECRET_CHARS))].sort(
    (a, b) => b.length - a.length,
  );
  for (const v of values) if (out.includes(v)) out = out.split(v).join('[REDACTED]');
  return out
    .replace(/\b([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|'[^']*'|[^\s'";&|]+)/g, (m, name: string) =>
      SECRET_NAME.test(name) ? `${name}=[REDACTED]` : m,
    )
    .replace(/(--?[A-Za-z][A-Za-z0-9-]*)(=|\s+)("[^"]*"|'[^']*'|[^\s'";&|]+)/g, (m, flag: string, sep: string) =>
      SECRET_NAME.test(flag) ? `${flag}${sep}[REDACTED]` : m,
    )
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g, '$1 [REDACTED]')
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@:]*:[^\s/@]*@/gi, '$1[REDACTED]@');
}
