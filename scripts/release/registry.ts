// A throwaway npm registry for the release test: Verdaccio 6.8.0, installed
// with npm into a cache folder the first time (it runs on Node 20 with
// node-fetch overridden to 2.7.0; 6.10 needs Node 22), started on a free
// port of 127.0.0.1 with its storage in a temporary folder. It serves our
// scope alone (npm is configured to take `@taskwire/*` from it and
// everything else from the usual registry, as a company registry for one
// scope is set up).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

/** The Verdaccio release the test runs. */
export const VERDACCIO = '6.8.0';

/** A running registry: its URL, a publish token of a user made on it, and how to stop it. */
export interface Registry {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  readonly token: string;
  /** Writes an npm user config that takes `@taskwire/*` from this registry, with the token, to `file`; returns `file`. */
  npmrc(file: string): string;
  /** Stops the registry; resolves once its process has exited. */
  stop(): Promise<void>;
}

/** A port that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

/** Installs Verdaccio into `cache` (skipped when it is there already); returns its command's path. */
export function installVerdaccio(cache: string): string {
  const dir = join(cache, `verdaccio-${VERDACCIO}`);
  const bin = join(dir, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const pkg = { name: 'taskwire-test-registry', private: true, dependencies: { verdaccio: VERDACCIO }, overrides: { 'node-fetch': '2.7.0' } };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: dir, encoding: 'utf8' });
  if (install.status !== 0 || !existsSync(bin)) throw new Error(`installing verdaccio@${VERDACCIO} failed:\n${install.stdout}${install.stderr}`);
  return bin;
}

function configFor(storage: string): string {
  return [
    `storage: ${JSON.stringify(join(storage, 'packages'))}`,
    'auth:',
    '  htpasswd:',
    `    file: ${JSON.stringify(join(storage, 'htpasswd'))}`,
    'packages:',
    "  '@taskwire/*':",
    '    access: $all',
    '    publish: $authenticated',
    'log: { type: stdout, format: json, level: warn }',
    '',
  ].join('\n');
}

/** Resolves once `child` prints `text`; rejects, with its output, when it exits first. */
function printed(child: ChildProcess, text: string, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!output().includes(text)) return;
      child.stdout!.off('data', check);
      resolve();
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => reject(new Error(`verdaccio exited (${code}) before it served:\n${output()}`)));
  });
}

/**
 * Starts Verdaccio (`bin` from {@link installVerdaccio}) with its storage in
 * `storage`, serving `@taskwire/*` only, and makes a user on it
 * (the registry's own `npm adduser` endpoint) whose token publishes.
 */
export async function startRegistry(bin: string, storage: string): Promise<Registry> {
  mkdirSync(storage, { recursive: true });
  const config = join(storage, 'config.yaml');
  writeFileSync(config, configFor(storage));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const child = spawn(process.execPath, [bin, '--config', config, '--listen', `127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    await printed(child, `http address - ${url}`, () => output);
    const user = await fetch(`${url}-/user/org.couchdb.user:release-test`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'release-test', password: 'release-test-password' }),
    });
    const { token } = (await user.json()) as { token?: string };
    if (!user.ok || !token) throw new Error(`making a user on verdaccio failed: ${user.status}`);
    const npmrc = (file: string) => {
      writeFileSync(file, `@taskwire:registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
      return file;
    };
    return { url, token, npmrc, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
