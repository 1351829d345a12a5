import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { altNames, mtlsAuth } from './mtls-auth.js';
import { parseSubjectAltName } from './subject-alt-name.js';

/** The subjectAltName node writes for a certificate openssl made with these `[alt]` entries (a self-signed one: only the text matters here). */
function nodeSubjectAltName(alt: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'taskwire-san-'));
  try {
    writeFileSync(join(dir, 'ext.cnf'), `[req]\ndistinguished_name=dn\n[dn]\n[ext]\nsubjectAltName=@alt\n[alt]\n${alt}\n`);
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'k.pem', '-out', 'c.pem', '-days', '1', '-subj', '/CN=t', '-config', 'ext.cnf', '-extensions', 'ext'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    return new X509Certificate(readFileSync(join(dir, 'c.pem'))).subjectAltName ?? '';
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('parseSubjectAltName', () => {
  it('reads entries, kinds with spaces, and quoted values with commas as one value', () => {
    const text = nodeSubjectAltName('URI.1=spiffe://evil.test/x, URI:spiffe://taskwire.test/alice\nDNS.1=agent.taskwire.test\nIP.1=127.0.0.1\nemail.1=ops@taskwire.test');
    expect(text).toContain('\\u002c'); // node quotes the value with a comma
    expect(parseSubjectAltName(text)).toEqual([
      { kind: 'URI', value: 'spiffe://evil.test/x, URI:spiffe://taskwire.test/alice' },
      { kind: 'DNS', value: 'agent.taskwire.test' },
      { kind: 'IP Address', value: '127.0.0.1' },
      { kind: 'email', value: 'ops@taskwire.test' },
    ]);
  });

  it('unescapes quotes and backslashes, and refuses text that is not in node form', () => {
    expect(parseSubjectAltName('URI:"a\\"b\\\\c", DNS:x')).toEqual([
      { kind: 'URI', value: 'a"b\\c' },
      { kind: 'DNS', value: 'x' },
    ]);
    expect(parseSubjectAltName('')).toEqual([]);
    for (const bad of ['URI:"open', 'DNS:a,DNS:b', 'DNS:a, ', 'nokind']) expect(() => parseSubjectAltName(bad)).toThrow(/subjectAltName/);
  });

  it('altNames and mtlsAuth never split a quoted value, and refuse an unreadable subjectAltName', async () => {
    const certificate = { subject: { CN: 'x' }, subjectAltName: 'URI:"spiffe://evil.test/x\\u002c URI:spiffe://taskwire.test/alice"', authorized: true };
    expect(altNames(certificate, 'URI')).toEqual(['spiffe://evil.test/x, URI:spiffe://taskwire.test/alice']);
    expect(await mtlsAuth()({ headers: {}, certificate })).toMatchObject({ id: 'spiffe://evil.test/x, URI:spiffe://taskwire.test/alice' });
    await expect(async () => mtlsAuth()({ headers: {}, certificate: { ...certificate, subjectAltName: 'URI:"open' } })).rejects.toThrow(/could not be read/);
  });
});
