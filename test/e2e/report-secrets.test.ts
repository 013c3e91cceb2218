import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';

// A router command often carries its secrets inline (`OPENAI_API_KEY=… litellm --master_key …`):
// none of them may reach report.json, summary.md, index.html, junit.xml or the terminal.

describe('a run whose router command carries secrets', () => {
  it('writes them nowhere, in the reports or on the terminal', async () => {
    const out = await mkdtemp(join(tmpdir(), 'throttlelab-secrets-'));
    // `:` takes its arguments and does nothing: a header and URL credentials as curl would carry them.
    const command =
      `: -H "x-api-key: sk-header-secret-111" -H 'Authorization: Bearer bearer-secret-222' https://someone:url-secret-333@127.0.0.1:9/ && ` +
      'DB_PASS=db-secret-444 SESSION_COOKIE="cookie-secret-555" OPENAI_API_KEY=sk-live-supersecret-123 ROUTER_TOKEN="tok-secret-789" node --import tsx test/fixtures/routers/serve.ts naive --api-key sk-flag-secret-456';
    const r = await cli(['run', 'test/fixtures/signals/short-run.yaml', '--router-cmd', command, '--out', out]);
    expect([0, 1]).toContain(r.code);
    const texts = [
      ...r.out,
      ...r.err,
      ...(await Promise.all(
        ['report.json', 'summary.md', 'index.html', 'junit.xml'].map((f) => readFile(join(out, f), 'utf8')),
      )),
    ].join('\n');
    for (const secret of [
      'sk-live-supersecret-123',
      'tok-secret-789',
      'sk-flag-secret-456',
      'sk-sim-signals-short-0001',
      'sk-header-secret-111',
      'bearer-secret-222',
      'url-secret-333',
      'db-secret-444',
      'cookie-secret-555',
    ])
      expect(texts).not.toContain(secret);
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as {
      router: string;
      routerRedacted?: boolean;
    };
    expect(report.router).toBe(
      `command: : -H "x-api-key: [REDACTED]" -H 'Authorization: [REDACTED]' https://[REDACTED]@127.0.0.1:9/ && DB_PASS=[REDACTED] SESSION_COOKIE=[REDACTED] OPENAI_API_KEY=[REDACTED] ROUTER_TOKEN=[REDACTED] node --import tsx test/fixtures/routers/serve.ts naive --api-key [REDACTED]`,
    );
    // Said where the command is shown: the report may not be replayed with it as it is.
    expect(report.routerRedacted).toBe(true);
    for (const f of ['summary.md', 'index.html'])
      expect(await readFile(join(out, f), 'utf8')).toContain('router command redacted');
    expect(r.out.join('\n')).toContain('router command redacted');
  }, 90_000);
});
