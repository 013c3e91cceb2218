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

  add(value: string, owner: KeyOwner): void {
    this.byValue.set(value, owner);
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
