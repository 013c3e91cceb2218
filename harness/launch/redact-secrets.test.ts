import { describe, expect, it } from 'vitest';
import { redactCommand, redactSecrets, secretValues } from './redact-secrets.js';

describe('redactSecrets', () => {
  it('removes inline secrets from a router output line, keeping what is not secret', () => {
    expect(
      redactSecrets(
        `OPENAI_API_KEY=sk-live-0123456789 ROUTER_TOKEN='tok en' PORT=8080 litellm --api-key abcd1234efgh --port 4000 --master_key=mk-999999999 --config x.yaml`,
      ),
    ).toBe(
      `OPENAI_API_KEY=[REDACTED] ROUTER_TOKEN=[REDACTED] PORT=8080 litellm --api-key [REDACTED] --port 4000 --master_key=[REDACTED] --config x.yaml`,
    );
  });

  it('removes any configured key value, Bearer tokens and URL passwords wherever they appear', () => {
    expect(
      redactSecrets(
        'node r.js $X sk-sim-openai-main-0001 -H "Authorization: Bearer abc.def" http://u:p4ss@127.0.0.1:4/v1',
        ['sk-sim-openai-main-0001'],
      ),
    ).toBe('node r.js $X [REDACTED] -H "Authorization: Bearer [REDACTED]" http://[REDACTED]@127.0.0.1:4/v1');
  });

  it('takes as secrets the values of variables whose names say so', () => {
    expect(secretValues({ HOME: '/home/someone', OPENAI_API_KEY: 'sk-0123456789', SHORT_KEY: 'x' })).toEqual([
      'sk-0123456789',
    ]);
  });
});

describe('redactCommand', () => {
  it.each([
    [
      'every environment assignment, whatever its name',
      'DB_PASS=hunter2 PORT=8080 node r.js',
      'DB_PASS=[REDACTED] PORT=[REDACTED] node r.js',
    ],
    [
      'a quoted assignment',
      `SESSION_COOKIE='a b c' X="d \\" e" node r.js`,
      'SESSION_COOKIE=[REDACTED] X=[REDACTED] node r.js',
    ],
    [
      'assignments after env and export',
      'env A=1 sh -c x; export B=2',
      'env A=[REDACTED] sh -c x; export B=[REDACTED]',
    ],
    ['a header value in double quotes', 'r -H "x-api-key: sk-live-123"', 'r -H "x-api-key: [REDACTED]"'],
    ['a Bearer header in single quotes', `r -H 'Authorization: Bearer eyJ.abc'`, `r -H 'Authorization: [REDACTED]'`],
    ['a --header= value without spaces', 'r --header=X-Goog-Api-Key:AIza123', 'r --header=X-Goog-Api-Key:[REDACTED]'],
    ['URL credentials', 'r --upstream https://user:pass@host:8/v1', 'r --upstream https://[REDACTED]@host:8/v1'],
    ['a URL with a token as its user', 'r redis://tok3n@127.0.0.1:6379', 'r redis://[REDACTED]@127.0.0.1:6379'],
    [
      'secret-named flags',
      'r --api-key k1 --token=k2 --password "k 3" --port 4',
      'r --api-key [REDACTED] --token=[REDACTED] --password [REDACTED] --port 4',
    ],
    ['a known secret value anywhere', 'r sk-sim-openai-main-0001', 'r [REDACTED]'],
  ])('hides %s', (_name, command, shown) => {
    expect(redactCommand(command, ['sk-sim-openai-main-0001'])).toEqual({ shown, redacted: true });
  });

  it('keeps a command with nothing secret as it is, and says nothing was redacted', () => {
    const command = 'node --import tsx r.ts --port "$THROTTLELAB_ROUTER_PORT" --config x.yaml';
    expect(redactCommand(command)).toEqual({ shown: command, redacted: false });
  });

  it('keeps values that only name a variable', () => {
    const command = 'PORT=$THROTTLELAB_ROUTER_PORT KEY="${OPENAI_API_KEY}" r -H "x-api-key: $KEY"';
    expect(redactCommand(command)).toEqual({ shown: command, redacted: false });
  });
});
