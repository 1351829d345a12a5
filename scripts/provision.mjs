// What the test suite needs from the machine, beyond the workspace's npm
// dependencies, and providing it: the one place `npm test` (through
// scripts/with-deps.mjs) and, through it, .ci/run decide what to install,
// so the two cannot drift. Each need is looked for where its tests look;
// a missing one is installed when this user can (root or sudo, and apt-get;
// Node 22 comes from the npm registry, PostgreSQL is a throwaway cluster of
// this run). What cannot be provided is kept, with why and the command that
// provides it, for the partial run's closing list.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The variable the PostgreSQL suites read their server's URL from. */
export const DATABASE_URL = 'TASKWIRE_TEST_DATABASE_URL';

/**
 * What the suites need, in the order they are provided: `paths` (all must
 * exist) say it is there, `install` provides it (`apt`: through
 * scripts/apt-install.sh and so root or sudo with apt-get; otherwise only
 * npm), `command` is what a user types to provide it, `suites` are the
 * tests that need it.
 */
export const NEEDS = [
  {
    name: 'Chromium (and an emoji font)',
    paths: ['/usr/bin/chromium', '/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf'],
    apt: true,
    install: ['bash', 'scripts/install-browser.sh'],
    command: 'bash scripts/install-browser.sh',
    suites: ['examples/reference-agent/test/web-page*.test.ts (the reference agent\'s web page in a real browser)'],
  },
  {
    name: 'nginx',
    paths: ['/usr/sbin/nginx'],
    apt: true,
    install: ['bash', 'scripts/install-nginx.sh'],
    command: 'bash scripts/install-nginx.sh',
    suites: ['packages/cluster (replicas behind a load balancer)', 'scripts/production-runbook.test.ts'],
  },
  {
    name: 'Node 22',
    node22: true,
    install: ['node', 'scripts/node22.mjs'],
    command: 'node scripts/node22.mjs',
    suites: ['packages/ai-sdk and examples/ai-sdk-agent (the AI SDK 7)', 'packages/openai-agents and examples/openai-agents-agent (the openai client of the Agents SDK)', 'packages/mcp/test/conformance.test.ts', 'scripts/readme-examples.test.ts (their examples)'],
  },
  {
    name: 'openssl',
    paths: ['/usr/bin/openssl'],
    apt: true,
    install: ['bash', 'scripts/apt-install.sh', 'openssl', '/usr/bin/openssl', 'openssl'],
    command: 'apt-get install openssl',
    suites: ['the mutual-TLS and HTTPS tests (packages/reliability mtls, packages/client credential origins, packages/inspector check-fuzz, packages/auth)'],
  },
  {
    name: 'PgBouncer',
    paths: ['/usr/sbin/pgbouncer'],
    apt: true,
    install: ['bash', 'scripts/apt-install.sh', 'pgbouncer', '/usr/sbin/pgbouncer', 'pgbouncer'],
    command: 'apt-get install pgbouncer',
    suites: ['packages/postgres/src/pooler.test.ts', 'packages/cluster/src/pooler.test.ts'],
  },
  {
    name: 'PostgreSQL',
    postgres: true,
    paths: ['/usr/lib/postgresql/15/bin/initdb'],
    apt: true,
    install: ['bash', 'scripts/apt-install.sh', 'postgresql-15', '/usr/lib/postgresql/15/bin/initdb', 'postgresql-15'],
    command: `apt-get install postgresql-15, then export ${DATABASE_URL}="$(bash scripts/start-postgres.sh)"`,
    suites: [
      'every suite on PostgreSQL (packages/postgres, packages/cluster, the conformance and reliability runs on PostgreSQL: shown as skipped, "not run")',
      'scripts/readme-commands.test.ts, scripts/production-runbook.test.ts, scripts/readme-examples.test.ts (the examples on PostgreSQL)',
    ],
  },
];

/**
 * The machine as {@link planProvisioning} sees it: which paths exist, who
 * runs (root, sudo), whether apt-get is there, this Node's major, the
 * environment, and the workspace root (for .cache/node22).
 * @typedef {{ exists: (path: string) => boolean, root: boolean, sudo: boolean, apt: boolean, nodeMajor: number, env: Record<string, string | undefined>, workspace: string }} Machine
 */

/**
 * One need's decision: `present` (nothing to do), `install` (run `install`,
 * then it is present), `start-postgres` (start this run's throwaway
 * PostgreSQL, installing it first when `install` is set) or `missing` (with
 * `reason`; its suites will not run).
 * @typedef {{ need: typeof NEEDS[number], action: 'present' | 'install' | 'start-postgres' | 'missing', install?: string[], reason?: string }} Step
 */

/** Why this machine cannot install Debian packages, or undefined when it can. */
function whyNoApt(machine) {
  if (!machine.root && !machine.sudo) return 'not root, and no sudo, so no Debian package can be installed';
  if (!machine.apt) return 'no apt-get on this machine';
  return undefined;
}

/**
 * Decides, without touching the machine, what to do for each of {@link NEEDS}
 * on `machine`: pure, so its tests pass a made-up machine. PostgreSQL is
 * `present` when `TASKWIRE_TEST_DATABASE_URL` is set; otherwise this run
 * starts its own.
 * @param {Machine} machine
 * @returns {Step[]}
 */
export function planProvisioning(machine) {
  return NEEDS.map((need) => {
    if (need.node22) {
      const cached = join(machine.workspace, '.cache', 'node22', 'package', 'bin', 'node');
      if (machine.nodeMajor >= 22 || machine.env.TASKWIRE_NODE22 || machine.exists(cached)) return { need, action: 'present' };
      return { need, action: 'install', install: need.install };
    }
    const there = need.paths.every((path) => machine.exists(path));
    if (need.postgres) {
      if (machine.env[DATABASE_URL]) return { need, action: 'present' };
      if (there) return { need, action: 'start-postgres' };
      const why = whyNoApt(machine);
      return why ? { need, action: 'missing', reason: `${DATABASE_URL} is not set and PostgreSQL 15 is not installed; ${why}` } : { need, action: 'start-postgres', install: need.install };
    }
    if (there) return { need, action: 'present' };
    const why = whyNoApt(machine);
    return why ? { need, action: 'missing', reason: `${need.paths.find((p) => !machine.exists(p))} is missing; ${why}` } : { need, action: 'install', install: need.install };
  });
}

/** The machine this process runs on, as {@link planProvisioning} takes it. */
export function thisMachine(workspace) {
  const has = (program) => spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0;
  return {
    exists: existsSync,
    root: typeof process.getuid === 'function' && process.getuid() === 0,
    sudo: has('sudo'),
    apt: has('apt-get'),
    nodeMajor: Number(process.versions.node.split('.')[0]),
    env: process.env,
    workspace,
  };
}

/**
 * The closing words of a run that lacked something: says plainly that the
 * run was partial, then, per missing need, why, the command that provides
 * it and the suites that did not run (or failed) for it. Empty when nothing
 * was missing.
 * @param {Step[]} missing
 */
export function partialRunReport(missing) {
  if (missing.length === 0) return '';
  const lines = [`\nPARTIAL RUN: ${missing.length === 1 ? 'one thing the suite needs was' : `${missing.length} things the suite needs were`} missing, so not every test ran.`];
  for (const { need, reason } of missing) {
    lines.push(`- ${need.name}: ${reason}.`, `  Provide it with: ${need.command}`, ...need.suites.map((suite) => `  Not run (or failed for it): ${suite}`));
  }
  lines.push('Run `npm test` again as root (or with sudo) to provide them, as CI does.\n');
  return lines.join('\n');
}

/**
 * Carries out `steps` (of {@link planProvisioning}) on this machine, saying
 * each step in one line on standard error: installs what is to be installed
 * and starts this run's PostgreSQL (its URL then in
 * `process.env.TASKWIRE_TEST_DATABASE_URL`). A step whose install fails
 * becomes missing, with the failure as its reason. Returns the missing
 * steps and `stop`, which stops the PostgreSQL it started (idempotent; a
 * no-op when it started none).
 * @param {Step[]} steps
 * @param {string} workspace
 * @returns {{ missing: Step[], stop: () => void }}
 */
export function provide(steps, workspace) {
  const say = (line) => process.stderr.write(`${line}\n`);
  // Installers' output goes to standard error; start-postgres.sh's standard output is the URL.
  const run = (args, env = process.env, out = 2) => spawnSync(args[0], args.slice(1), { cwd: workspace, env, stdio: ['ignore', out, 'inherit'], encoding: 'utf8' });
  const missing = [];
  let stop = () => undefined;
  for (const step of steps) {
    const { need } = step;
    if (step.action === 'missing') {
      say(`${need.name}: missing (${step.reason})`);
      missing.push(step);
      continue;
    }
    if (step.install) {
      say(`${need.name}: providing it (${step.install.join(' ')})`);
      const installed = run(step.install);
      if (installed.status !== 0) {
        missing.push({ need, action: 'missing', reason: `\`${step.install.join(' ')}\` failed (exit ${installed.status ?? installed.signal})` });
        continue;
      }
    }
    if (step.action !== 'start-postgres') {
      if (!step.install) say(`${need.name}: present`);
      continue;
    }
    const envFile = `/tmp/taskwire-test-postgres.${process.pid}.env`;
    const env = { ...process.env, TASKWIRE_PG_ENV: envFile };
    const started = run(['bash', 'scripts/start-postgres.sh'], env, 'pipe');
    if (started.status !== 0) {
      missing.push({ need, action: 'missing', reason: `\`bash scripts/start-postgres.sh\` failed (exit ${started.status ?? started.signal})` });
      continue;
    }
    process.env[DATABASE_URL] = started.stdout.trim();
    say(`${need.name}: started this run's throwaway server at ${process.env[DATABASE_URL]} (stopped when the run ends)`);
    let stopped = false;
    stop = () => {
      if (stopped) return;
      stopped = true;
      run(['bash', 'scripts/stop-postgres.sh'], env);
    };
  }
  return { missing, stop };
}
