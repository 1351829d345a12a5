import { describe, expect, it } from 'vitest';
import { A2AError } from './errors.js';
import { negotiateVersion, withNextVersion } from './version.js';

function refusal(requested: string): A2AError {
  try {
    negotiateVersion(requested);
  } catch (error) {
    if (A2AError.is(error)) return error;
    throw error;
  }
  throw new Error(`${requested} was accepted`);
}

describe('negotiateVersion (A2A-Version, §3.6)', () => {
  it('reads an empty or absent version as 0.3', () => {
    for (const empty of [undefined, null, '', '  ']) expect(negotiateVersion(empty)).toBe('0.3');
  });

  it('reads Major.Minor, ignoring a patch number', () => {
    expect(negotiateVersion('1.0')).toBe('1.0');
    expect(negotiateVersion(' 1.0 ')).toBe('1.0');
    expect(negotiateVersion('1.0.3')).toBe('1.0');
    expect(negotiateVersion('0.3')).toBe('0.3');
    expect(negotiateVersion('0.3.0')).toBe('0.3');
  });

  it('refuses a bare major, other shapes and versions not served with VersionNotSupported (-32009)', () => {
    for (const bad of ['1', '0', '2.0', '1.1', '1.0.', '1.0-beta', 'v1.0', '1..0', '1.0.0.0', 'abc']) {
      const error = refusal(bad);
      expect([bad, error.kind, error.code]).toEqual([bad, 'VersionNotSupported', -32009]);
      expect(error.metadata).toEqual({ requestedVersion: bad });
    }
    expect(refusal('1').message).toContain('Major.Minor');
    expect(refusal('2.0').message).not.toContain('Major.Minor');
  });

  it('takes 1.1 only as a server negotiates (next), for the service to serve or refuse', () => {
    expect(negotiateVersion('1.1', { next: true })).toBe('1.1');
    expect(negotiateVersion('1.1.2', { next: true })).toBe('1.1');
    expect(negotiateVersion('1.0', { next: true })).toBe('1.0');
    expect(() => negotiateVersion('1.2', { next: true })).toThrow(/not supported/);
  });

  it('announces each interface as 1.1 first, then again as given, leaving the input as it was', () => {
    const given = [
      { url: 'http://127.0.0.1:1/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'http://127.0.0.1:1/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ];
    const copy = structuredClone(given);
    expect(withNextVersion(given)).toEqual([{ ...given[0], protocolVersion: '1.1' }, { ...given[1], protocolVersion: '1.1' }, ...given]);
    expect(given).toEqual(copy);
  });
});
