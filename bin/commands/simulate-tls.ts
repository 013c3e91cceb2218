import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateTlsIdentity } from '../../simulator/index.js';
import { CliError } from '../errors.js';

/** What `simulate --tls` serves with, and where it wrote the CA certificate. */
export interface SimulateTls {
  cert: string;
  key: string;
  /** Absolute path of the CA certificate (PEM): the one file `--tls` writes. */
  caFile: string;
}

/**
 * Generates a throwaway CA and loopback certificate and writes the CA certificate (public) to
 * `caOut`, else to a fresh temporary folder. The keys stay in this process.
 */
export async function prepareTls(caOut: string | undefined): Promise<SimulateTls> {
  const identity = await generateTlsIdentity();
  const caFile = resolve(caOut ?? join(await mkdtemp(join(tmpdir(), 'throttlelab-tls-')), 'ca.pem'));
  try {
    await writeFile(caFile, identity.caCert, { mode: 0o644 });
  } catch (error) {
    throw new CliError(
      'CLI_OUTPUT_UNWRITABLE',
      `--tls-ca-out ${caFile}: writing the CA certificate failed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Pick a writable path.`,
      { cause: error },
    );
  }
  return { cert: identity.cert, key: identity.key, caFile };
}
