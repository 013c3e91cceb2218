import { generate } from 'selfsigned';

/** A throwaway certificate authority and the loopback server certificate it signed, as PEM. */
export interface TlsIdentity {
  /** The CA certificate: public, what a client trusts (`NODE_EXTRA_CA_CERTS`). */
  caCert: string;
  /** The server's certificate, for 127.0.0.1, ::1 and localhost. */
  cert: string;
  /** The server's private key: never written anywhere. */
  key: string;
}

const DAY_MS = 86_400_000;

/**
 * Generates a fresh CA and a server certificate for loopback (127.0.0.1, ::1, localhost), valid
 * from a day ago for 30 days. The CA's key is discarded once it has signed: nothing else can be
 * issued under it.
 */
export async function generateTlsIdentity(now = new Date()): Promise<TlsIdentity> {
  const notBeforeDate = new Date(now.getTime() - DAY_MS);
  const notAfterDate = new Date(now.getTime() + 30 * DAY_MS);
  const common = { keyType: 'ec', curve: 'P-256', algorithm: 'sha256', notBeforeDate, notAfterDate } as const;
  const ca = await generate([{ name: 'commonName', value: 'throttlelab simulator CA' }], {
    ...common,
    extensions: [
      { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const server = await generate([{ name: 'commonName', value: 'localhost' }], {
    ...common,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { caCert: ca.cert, cert: server.cert, key: server.private };
}
