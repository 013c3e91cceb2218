import { maskKey } from '../../vendors/openai-compatible.js';
import type { ErrorSpec } from '../../vendors/types.js';
import type { KeyMatch } from '../keyring.js';
import { refuse, type Attempt, type Authenticated, type Refused } from './attempt.js';

/**
 * Admits only a key of the provider the request reached (another provider's key, an unknown one
 * or none is refused the way the vendor refuses it), then the vendor's header checks.
 */
export function authenticate(attempt: Attempt): Refused | Authenticated {
  const { key } = attempt;
  if (key.kind !== 'own') return refuse(attempt, authError(key, attempt.credential));
  const preflight = attempt.profile.preflight?.(attempt.req);
  if (preflight) return refuse(attempt, preflight);
  attempt.owner = key.owner;
  return attempt as Authenticated;
}

function authError(key: KeyMatch, credential: string | undefined): ErrorSpec {
  if (key.kind === 'none') return { kind: 'missing_api_key' };
  return { kind: 'invalid_api_key', maskedKey: maskKey(credential ?? '') };
}
