import { expect, it } from 'vitest';
import { defaultReplicaName, parseOptions } from './options.js';

const POD = 'taskwire-reference-agent-7c9d8f6b5d';

it('gives the pods of one Deployment (one long host-name prefix, one port) names of their own, at most 40 characters, the same at each start', () => {
  const names = ['x2kqp', 'b8wzt', 'mm4rd'].map((suffix) => defaultReplicaName(`${POD}-${suffix}`, '0.0.0.0', 41241));
  expect(new Set(names).size).toBe(3);
  for (const name of names) {
    expect(name.length).toBeLessThanOrEqual(40);
    expect(name).not.toContain('#');
    expect(name.endsWith(':41241')).toBe(true);
  }
  expect(defaultReplicaName(`${POD}-x2kqp`, '0.0.0.0', 41241)).toBe(names[0]);
});

it('tells apart processes of one machine on one port and different addresses, and keeps a short name readable', () => {
  expect(defaultReplicaName('box', '0.0.0.0', 8080)).toBe('box:8080');
  expect(defaultReplicaName('box', '127.0.0.1', 8080)).toBe('box@127.0.0.1:8080');
  expect(defaultReplicaName('box', '127.0.0.2', 8080)).not.toBe(defaultReplicaName('box', '127.0.0.1', 8080));
  const long = 'a'.repeat(60);
  expect(defaultReplicaName(long, '127.0.0.2', 8080)).not.toBe(defaultReplicaName(long, '127.0.0.3', 8080));
});

it('names a postgres replica by default only with a fixed port, and an explicit --replica-name wins', () => {
  const store = (argv: string[]) => {
    const options = parseOptions(['--store', 'postgres://db/x', ...argv], '/', {});
    if (options === 'help' || options.store.kind !== 'postgres') throw new Error('expected a postgres store');
    return options.store.replicaName;
  };
  expect(store(['--port', '0'])).toBeUndefined();
  expect(store(['--port', '9000', '--host', '0.0.0.0'])).toMatch(/:9000$/);
  expect(store(['--port', '9000', '--replica-name', 'web-1'])).toBe('web-1');
});
