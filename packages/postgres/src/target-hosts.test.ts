import { describe, expect, it } from 'vitest';
import { redactUrl } from './connection.js';
import { parseTargets } from './target-hosts.js';

describe('connection strings with several hosts', () => {
  it('splits the hosts in order, each with its port (5432 when missing), into URLs node-postgres reads', () => {
    const targets = parseTargets('postgres://app:s%40cret@db1.example:5433,db2.example,[::1]:6000/tasks?sslmode=require&target_session_attrs=read-write');
    expect(targets).toEqual({
      sessionAttrs: 'read-write',
      hosts: [
        { host: 'db1.example', port: 5433, url: 'postgres://app:s%40cret@db1.example:5433/tasks?sslmode=require' },
        { host: 'db2.example', port: 5432, url: 'postgres://app:s%40cret@db2.example:5432/tasks?sslmode=require' },
        { host: '::1', port: 6000, url: 'postgres://app:s%40cret@[::1]:6000/tasks?sslmode=require' },
      ],
    });
    for (const host of targets!.hosts) expect(() => new URL(host.url)).not.toThrow();
  });

  it('takes a port= parameter for hosts without one, postgresql:// as postgres://, and no database', () => {
    expect(parseTargets('postgresql://h1,h2:7000?port=6543')).toEqual({
      sessionAttrs: 'read-write',
      hosts: [
        { host: 'h1', port: 6543, url: 'postgresql://h1:6543' },
        { host: 'h2', port: 7000, url: 'postgresql://h2:7000' },
      ],
    });
  });

  it('means read-write with several hosts and no target_session_attrs; keeps primary and any', () => {
    expect(parseTargets('postgres://a,b/db')!.sessionAttrs).toBe('read-write');
    expect(parseTargets('postgres://a,b/db?target_session_attrs=primary')!.sessionAttrs).toBe('primary');
    expect(parseTargets('postgres://a/db?target_session_attrs=any')).toMatchObject({ sessionAttrs: 'any', hosts: [{ host: 'a', port: 5432 }] });
    expect(parseTargets('postgres://a/db?target_session_attrs=read-write')!.hosts).toHaveLength(1);
  });

  it('leaves a one-host string without target_session_attrs (or not a URL) to node-postgres', () => {
    expect(parseTargets('postgres://user:pw@localhost:5432/db?sslmode=disable')).toBeUndefined();
    expect(parseTargets('host=/var/run/postgresql dbname=x')).toBeUndefined();
  });

  it('refuses the attributes of a read-only session with a clear error, and unknown ones', () => {
    for (const attrs of ['read-only', 'standby', 'prefer-standby']) {
      expect(() => parseTargets(`postgres://a,b/db?target_session_attrs=${attrs}`)).toThrow(new RegExp(`target_session_attrs=${attrs} is not supported: Taskwire writes`));
    }
    expect(() => parseTargets('postgres://a,b/db?target_session_attrs=wat')).toThrow(/Invalid target_session_attrs "wat"/);
    expect(() => parseTargets('postgres://a,,b/db')).toThrow(/an empty host/);
    expect(() => parseTargets('postgres://a:99999,b/db')).toThrow(/bad port/);
  });

  it('names the database in messages without its password', () => {
    expect(redactUrl('postgres://app:secret@h1:5432,h2:5432/db')).toBe('postgres://app:***@h1:5432,h2:5432/db');
    expect(redactUrl('postgres://app@h1,h2/db')).toBe('postgres://app@h1,h2/db');
  });
});
