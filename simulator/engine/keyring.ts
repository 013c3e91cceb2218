/** Where a presented credential belongs. */
export interface KeyOwner {
  providerIndex: number;
  providerId: string;
  keyId: string;
  org: string;
}

/** How a request's credential relates to the provider it reached; never the credential itself. */
export type KeyMatch =
  { kind: 'own'; owner: KeyOwner } | { kind: 'foreign'; owner: KeyOwner } | { kind: 'unknown' } | { kind: 'none' };

/** Every configured credential across all providers, so a misrouted key is recognised as such. */
export class Keyring {
  private readonly byValue = new Map<string, KeyOwner>();
  /** Every form a credential may travel in (its value, and its identity where a vendor signs), longest first. */
  private readonly forms: Array<[string, KeyOwner]> = [];

  /** Registers a credential by the identity a request presents, and the raw forms it may travel in. */
  add(value: string, owner: KeyOwner, raw: readonly string[] = []): void {
    this.byValue.set(value, owner);
    for (const form of new Set([value, ...raw]))
      if (form.length >= 8 && !this.forms.some(([f]) => f === form)) this.forms.push([form, owner]);
    this.forms.sort((a, b) => b[0].length - a[0].length);
  }

  /**
   * Looks for credentials in every header, query parameter and the body of a request that reached
   * provider `providerIndex` presenting `presented` (left out: the ledger's `key` names it): another provider's key anywhere,
   * or a key of another organisation of the same provider. Returns labels like
   * `header:x-api-key=foreign:anthropic/main`, `query:key=org:org-b/k3`, `body=foreign:groq/main`;
   * the values themselves never leave this method.
   */
  scan(
    headers: Readonly<Record<string, string | undefined>>,
    query: URLSearchParams,
    body: string,
    providerIndex: number,
    presented: KeyOwner | undefined,
  ): string[] {
    const own = presented?.providerIndex === providerIndex ? presented : undefined;
    if (this.forms.length === 0) return [];
    const found: string[] = [];
    for (const name in headers) {
      const value = headers[name];
      if (value !== undefined) this.look(found, 'header:', name, value, providerIndex, presented, own);
    }
    for (const [name, value] of query) this.look(found, 'query:', name, value, providerIndex, presented, own);
    // Bounded work: the body is searched only for a modest number of credentials.
    if (this.forms.length <= 64) this.look(found, 'body', '', body, providerIndex, presented, own);
    return found.slice(0, 16);
  }

  // Adds to `found` the labels of credentials `value` holds; called for every header of every
  // request, so it makes nothing (no label, no set) until it finds one.
  private look(
    found: string[],
    kind: string,
    name: string,
    value: string,
    providerIndex: number,
    presented: KeyOwner | undefined,
    own: KeyOwner | undefined,
  ): void {
    if (value.length < 8) return;
    let seen: KeyOwner[] | undefined;
    for (const [form, owner] of this.forms) {
      if (seen?.includes(owner) || owner === presented || !containsToken(value, form)) continue;
      (seen ??= []).push(owner);
      if (owner.providerIndex !== providerIndex)
        found.push(`${kind}${name}=foreign:${owner.providerId}/${owner.keyId}`);
      else if (own && owner.org !== own.org) found.push(`${kind}${name}=org:${owner.org}/${owner.keyId}`);
    }
  }

  /** Classifies `value` as presented to provider `providerIndex`. */
  match(value: string | undefined, providerIndex: number): KeyMatch {
    if (value === undefined || value === '') return { kind: 'none' };
    const owner = this.byValue.get(value);
    if (!owner) return { kind: 'unknown' };
    return owner.providerIndex === providerIndex ? { kind: 'own', owner } : { kind: 'foreign', owner };
  }

  /** The ledger label for a match: the key id, `foreign:<provider>/<key>`, `unknown` or `none`. */
  static label(m: KeyMatch): string {
    switch (m.kind) {
      case 'own':
        return m.owner.keyId;
      case 'foreign':
        return `foreign:${m.owner.providerId}/${m.owner.keyId}`;
      default:
        return m.kind;
    }
  }
}

const KEY_CHAR = /[A-Za-z0-9_-]/;

/**
 * Whether `value` holds `form` as a whole token: not inside a longer key (`gsk-abc` does not hold
 * `sk-abc`), so one vendor's key that ends with another's is not read as carrying it.
 */
export function containsToken(value: string, form: string): boolean {
  for (let at = value.indexOf(form); at >= 0; at = value.indexOf(form, at + 1)) {
    const before = at > 0 ? value[at - 1]! : '';
    const after = at + form.length < value.length ? value[at + form.length]! : '';
    if (!KEY_CHAR.test(before) && !KEY_CHAR.test(after)) return true;
  }
  return false;
}
