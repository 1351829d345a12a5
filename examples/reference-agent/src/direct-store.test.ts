import { expect, it } from 'vitest';
import { parseOptions } from './options.js';

it('takes --direct-store with a postgres store only, and only a postgres:// URL', () => {
  const parsed = parseOptions(['--store', 'postgres://pooler:6432/x', '--direct-store', 'postgres://db:5432/x'], '/', {});
  if (parsed === 'help' || parsed.store.kind !== 'postgres') throw new Error('expected a postgres store');
  expect(parsed.store.directUrl).toBe('postgres://db:5432/x');
  expect(() => parseOptions(['--store', 'postgres://pooler:6432/x', '--direct-store', 'db:5432'], '/', {})).toThrow(/--direct-store must be a postgres:\/\/ URL/);
  expect(() => parseOptions(['--store', 'memory', '--direct-store', 'postgres://db:5432/x'], '/', {})).toThrow(/--direct-store applies to a postgres store only/);
});
