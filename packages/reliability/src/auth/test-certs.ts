import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OPENSSL = '/usr/bin/openssl';
const INSTALL = fileURLToPath(new URL('../../../../scripts/apt-install.sh', import.meta.url));

/** A key and certificate, PEM. */
export interface KeyPair {
  readonly key: string;
  readonly cert: string;
}

/** What the mTLS tests use: a CA, a server certificate for 127.0.0.1, client certificates, and one from a CA nobody trusts. */
export interface TestCerts {
  readonly ca: string;
  readonly server: KeyPair;
  /** SAN `URI:spiffe://taskwire.test/alice`, CN alice. */
  readonly alice: KeyPair;
  /** CN bob only, no SAN. */
  readonly bob: KeyPair;
  /** CN mallory, signed by another CA. */
  readonly stranger: KeyPair;
  /** From the trusted CA, CN eve, a DNS SAN that spells alice's SPIFFE id and no URI SAN. */
  readonly eveDns: KeyPair;
  /** From the trusted CA, CN that spells alice's SPIFFE id, no SAN. */
  readonly eveCn: KeyPair;
  /** From the trusted CA, one URI SAN whose value holds a comma: `spiffe://taskwire.test/x, URI:spiffe://taskwire.test/alice`. */
  readonly comma: KeyPair;
}

/** The SPIFFE id in alice's certificate (which eve's certificates spell in other fields). */
export const ALICE_ID = 'spiffe://taskwire.test/alice';

/**
 * Makes the certificates with the openssl command line (Debian's openssl,
 * installed through scripts/apt-install.sh when it is missing) in a
 * temporary folder that is removed afterwards.
 */
export async function makeTestCerts(): Promise<TestCerts> {
  if (!existsSync(OPENSSL)) execFileSync('bash', [INSTALL, 'openssl', OPENSSL, 'openssl'], { stdio: 'inherit' });
  const dir = await mkdtemp(join(tmpdir(), 'taskwire-mtls-'));
  const run = (...args: string[]) => execFileSync(OPENSSL, args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  try {
    const ca = (name: string) => run('req', '-x509', ...ec, '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${name}`);
    const issue = async (name: string, signer: string, subject: string, san?: string) => {
      run('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
      // A SAN may be a section reference (`@alt` and its `[alt]` lines): it comes last, after the plain extensions.
      const extensions = ['basicConstraints=CA:FALSE', san && `subjectAltName=${san}`].filter(Boolean).join('\n');
      await writeFile(join(dir, `${name}.ext`), `${extensions}\n`);
      run('x509', '-req', '-in', `${name}.csr`, '-CA', `${signer}.crt`, '-CAkey', `${signer}.key`, '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.ext`);
      return { key: await readFile(join(dir, `${name}.key`), 'utf8'), cert: await readFile(join(dir, `${name}.crt`), 'utf8') };
    };
    ca('test-ca');
    ca('other-ca');
    return {
      ca: await readFile(join(dir, 'test-ca.crt'), 'utf8'),
      server: await issue('server', 'test-ca', '/CN=127.0.0.1', 'IP:127.0.0.1,DNS:localhost'),
      alice: await issue('alice', 'test-ca', '/CN=alice/O=Taskwire tests', `URI:${ALICE_ID}`),
      bob: await issue('bob', 'test-ca', '/CN=bob'),
      stranger: await issue('mallory', 'other-ca', '/CN=mallory'),
      eveDns: await issue('eve-dns', 'test-ca', '/CN=eve', `@alt\n[alt]\nDNS.1=${ALICE_ID}`),
      eveCn: await issue('eve-cn', 'test-ca', `/CN=${ALICE_ID.replace(/\//g, '\\/')}`),
      comma: await issue('comma', 'test-ca', '/CN=comma', `@alt\n[alt]\nURI.1=spiffe://taskwire.test/x, URI:${ALICE_ID}`),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
