import { describe, expect, it } from 'vitest';
import { NEEDS, partialRunReport, planProvisioning, provide } from './provision.mjs';

// What `npm test` (and so .ci/run) decides to provide, on made-up machines:
// the decision is pure, so no package is installed and no server started here.
type Machine = Parameters<typeof planProvisioning>[0];
const everything = NEEDS.flatMap((need) => need.paths ?? []);
const machine = (over: Partial<Machine> & { present?: readonly string[] } = {}): Machine => {
  const present = new Set(over.present ?? []);
  return { exists: (path) => present.has(path), root: false, sudo: false, apt: true, nodeMajor: 20, env: {}, workspace: '/w', ...over };
};
const actions = (m: Machine) => Object.fromEntries(planProvisioning(m).map((step) => [step.need.name, step.action]));

describe('planning what the test suite needs', () => {
  it('does nothing on a machine that has everything and a database URL', () => {
    const plan = planProvisioning(machine({ present: [...everything, '/w/.cache/node22/package/bin/node'], env: { TASKWIRE_TEST_DATABASE_URL: 'postgres://x' } }));
    expect(plan.map((step) => step.action)).toEqual(NEEDS.map(() => 'present'));
  });

  it('as root with apt-get on a bare machine, installs each need and starts a PostgreSQL of its own', () => {
    const plan = planProvisioning(machine({ root: true }));
    expect(Object.fromEntries(plan.map((step) => [step.need.name, [step.action, step.install?.join(' ')]]))).toEqual({
      'Chromium (and an emoji font)': ['install', 'bash scripts/install-browser.sh'],
      nginx: ['install', 'bash scripts/install-nginx.sh'],
      'Node 22': ['install', 'node scripts/node22.mjs'],
      openssl: ['install', 'bash scripts/apt-install.sh openssl /usr/bin/openssl openssl'],
      PgBouncer: ['install', 'bash scripts/apt-install.sh pgbouncer /usr/sbin/pgbouncer pgbouncer'],
      PostgreSQL: ['start-postgres', 'bash scripts/apt-install.sh postgresql-15 /usr/lib/postgresql/15/bin/initdb postgresql-15'],
    });
  });

  it('installs through sudo when not root', () => {
    expect(actions(machine({ sudo: true })).nginx).toBe('install');
  });

  it('starts a PostgreSQL without installing it when PostgreSQL 15 is there and no URL is set, even without root', () => {
    const [postgres] = planProvisioning(machine({ present: ['/usr/lib/postgresql/15/bin/initdb'] })).filter((step) => step.need.postgres);
    expect(postgres).toMatchObject({ action: 'start-postgres' });
    expect(postgres!.install).toBeUndefined();
  });

  it('takes Node 22 from this Node, TASKWIRE_NODE22 or the cache before installing it', () => {
    expect(actions(machine({ nodeMajor: 22 }))['Node 22']).toBe('present');
    expect(actions(machine({ env: { TASKWIRE_NODE22: '/opt/node' } }))['Node 22']).toBe('present');
    expect(actions(machine({ present: ['/w/.cache/node22/package/bin/node'] }))['Node 22']).toBe('present');
    expect(actions(machine({ apt: false }))['Node 22']).toBe('install');
  });

  it('without root, sudo or apt-get, says what is missing and why, and the report says the run was partial', () => {
    const noRoot = planProvisioning(machine({ present: ['/usr/bin/openssl'] }));
    expect(noRoot.filter((step) => step.action === 'missing').map((step) => step.need.name)).toEqual(['Chromium (and an emoji font)', 'nginx', 'PgBouncer', 'PostgreSQL']);
    const postgres = noRoot.find((step) => step.need.postgres)!;
    expect(postgres.reason).toBe('TASKWIRE_TEST_DATABASE_URL is not set and PostgreSQL 15 is not installed; not root, and no sudo, so no Debian package can be installed');
    expect(planProvisioning(machine({ root: true, apt: false })).find((step) => step.need.name === 'nginx')!.reason).toBe('/usr/sbin/nginx is missing; no apt-get on this machine');

    const report = partialRunReport(noRoot.filter((step) => step.action === 'missing'));
    expect(report).toMatch(/^\nPARTIAL RUN: 4 things the suite needs were missing, so not every test ran\./);
    expect(report).toContain('- nginx: /usr/sbin/nginx is missing; not root, and no sudo, so no Debian package can be installed.\n  Provide it with: bash scripts/install-nginx.sh\n');
    expect(report).toContain('  Not run (or failed for it): packages/postgres/src/pooler.test.ts');
    expect(report).toContain('Provide it with: apt-get install postgresql-15, then export TASKWIRE_TEST_DATABASE_URL="$(bash scripts/start-postgres.sh)"');
    expect(report).toMatch(/every suite on PostgreSQL .*shown as skipped, "not run"/);
    expect(partialRunReport([])).toBe('');
  });

  it('an install that fails turns its need into a missing one, naming the command', () => {
    const need = NEEDS.find((n) => n.name === 'openssl')!;
    const { missing, stop } = provide([{ need, action: 'install', install: ['sh', '-c', 'exit 3'] }], process.cwd());
    stop();
    expect(missing).toEqual([{ need, action: 'missing', reason: '`sh -c exit 3` failed (exit 3)' }]);
  });
});
