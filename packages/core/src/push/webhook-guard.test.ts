import { describe, expect, it } from 'vitest';
import { classifyAddress, parseIp, parseRange, inRange } from './ip-address.js';
import type { HostLookup } from './webhook-guard.js';
import { createWebhookGuard, UnsafeWebhookError } from './webhook-guard.js';

/** A resolver answering from a table; anything else is ENOTFOUND. */
function fakeDns(table: Record<string, string[]>): HostLookup {
  return async (host) => {
    const found = table[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

const dns = fakeDns({
  'hooks.example.com': ['93.184.215.14'],
  'rebind.example.com': ['10.0.0.1'],
  'mixed.example.com': ['93.184.215.14', '127.0.0.1'],
  'v6.example.com': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'metadata.example.com': ['fd00:ec2::254'],
  localhost: ['127.0.0.1', '::1'],
});

async function refusal(guard: ReturnType<typeof createWebhookGuard>, url: string): Promise<UnsafeWebhookError> {
  const error = await guard.resolve(url).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `${url} should be refused`).toBeInstanceOf(UnsafeWebhookError);
  return error as UnsafeWebhookError;
}

describe('webhook SSRF guard', () => {
  const guard = createWebhookGuard({ lookup: dns });

  it.each([
    ['http://127.0.0.1:8080/hook', 'loopback'],
    ['http://10.0.0.1/hook', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['http://[::1]:9000/hook', 'loopback'],
    ['http://rebind.example.com/hook', 'private'],
    ['http://172.16.5.4/', 'private'],
    ['http://192.168.1.1/', 'private'],
    ['http://100.64.0.1/', 'shared (carrier-grade NAT)'],
    ['http://169.254.10.10/', 'link-local'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[fc00::5]/', 'private'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:a9fe:a9fe]/', 'cloud metadata'],
    ['http://[64:ff9b::10.0.0.1]/', 'private'],
    ['http://[2002:7f00:1::]/', 'loopback'],
    ['http://metadata.example.com/', 'cloud metadata'],
    ['http://2130706433/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://224.0.0.1/', 'multicast'],
  ])('refuses %s (%s)', async (url, kind) => {
    const error = await refusal(guard, url);
    expect(error.reason).toBe(kind);
    expect(error.message).toContain(`${kind} address`);
    expect(error.message).toContain('allow');
  });

  it('refuses a name when any of its addresses is not public, naming the address', async () => {
    const error = await refusal(guard, 'https://mixed.example.com/hook');
    expect(error.reason).toBe('loopback');
    expect(error.address).toBe('127.0.0.1');
    expect(error.message).toContain('mixed.example.com resolves to 127.0.0.1');
  });

  it('refuses localhost through the real resolver', async () => {
    const error = await refusal(createWebhookGuard(), 'http://localhost:1/hook');
    expect(error.reason).toBe('loopback');
  });

  it('refuses schemes other than http(s), credentials in the URL, bad URLs and unknown hosts', async () => {
    expect((await refusal(guard, 'ftp://hooks.example.com/x')).reason).toBe('scheme');
    expect((await refusal(guard, 'file:///etc/passwd')).reason).toBe('scheme');
    expect((await refusal(guard, 'https://user:pw@hooks.example.com/')).reason).toBe('credentials');
    expect((await refusal(guard, 'not a url')).reason).toBe('invalid-url');
    const unknown = await refusal(guard, 'https://nowhere.example.com/');
    expect(unknown.reason).toBe('unresolvable');
    expect(unknown.message).toContain('ENOTFOUND');
  });

  it('accepts public addresses and returns the addresses it checked', async () => {
    expect(await guard.resolve('https://hooks.example.com/a2a')).toMatchObject({
      hostname: 'hooks.example.com',
      addresses: [{ address: '93.184.215.14', family: 4 }],
    });
    expect((await guard.resolve('https://v6.example.com/')).addresses[0]?.family).toBe(6);
    expect((await guard.resolve('http://8.8.8.8/')).addresses).toEqual([{ address: '8.8.8.8', family: 4 }]);
  });

  it('lets allowed addresses, ranges and names through, and only those', async () => {
    const allowing = createWebhookGuard({ lookup: dns, allow: ['127.0.0.1', '10.0.0.0/8', '::1', 'localhost'] });
    await expect(allowing.resolve('http://127.0.0.1:8080/')).resolves.toBeDefined();
    await expect(allowing.resolve('http://10.200.3.4/')).resolves.toBeDefined();
    await expect(allowing.resolve('http://rebind.example.com/')).resolves.toBeDefined();
    await expect(allowing.resolve('http://[::1]/')).resolves.toBeDefined();
    await expect(allowing.resolve('http://localhost:1/')).resolves.toBeDefined();
    expect((await refusal(allowing, 'http://127.0.0.2/')).reason).toBe('loopback');
    expect((await refusal(allowing, 'http://169.254.169.254/')).reason).toBe('cloud metadata');
    const wildcard = createWebhookGuard({ lookup: dns, allow: ['*.example.com'] });
    await expect(wildcard.resolve('http://rebind.example.com/')).resolves.toBeDefined();
    expect(() => createWebhookGuard({ allow: ['10.0.0.0/40'] })).toThrow(/not an IP address or CIDR range/);
    expect(() => createWebhookGuard({ allow: ['http://x/'] })).toThrow(/not a host name/);
  });
});

describe('IP addresses', () => {
  it('parses IPv4 and IPv6 forms and rejects look-alikes', () => {
    expect(parseIp('192.168.0.1')).toEqual(new Uint8Array([192, 168, 0, 1]));
    expect(parseIp('::1')?.[15]).toBe(1);
    expect(parseIp('[fe80::1%eth0]')?.[0]).toBe(0xfe);
    expect(parseIp('::ffff:1.2.3.4')?.slice(10)).toEqual(new Uint8Array([0xff, 0xff, 1, 2, 3, 4]));
    for (const bad of ['1.2.3', '1.2.3.256', '01.2.3.4', 'example.com', '1::2::3', '12345::', '1:2:3:4:5:6:7:8:9']) {
      expect(parseIp(bad), bad).toBeUndefined();
    }
  });

  it('matches CIDR ranges bit by bit', () => {
    expect(inRange(parseIp('172.31.255.255')!, parseRange('172.16.0.0/12'))).toBe(true);
    expect(inRange(parseIp('172.32.0.0')!, parseRange('172.16.0.0/12'))).toBe(false);
    expect(inRange(parseIp('::ffff:10.1.2.3')!, parseRange('10.0.0.0/8'))).toBe(true);
    expect(inRange(parseIp('2001:db8::1')!, parseRange('2001:db8::/32'))).toBe(true);
  });

  it('classifies public addresses as public', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) {
      expect(classifyAddress(parseIp(address)!), address).toBeUndefined();
    }
  });
});
