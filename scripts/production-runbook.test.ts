import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReservedPorts } from '../packages/cluster/src/support/nginx.js';
import { reservePorts } from '../packages/cluster/src/support/nginx.js';
import type { Databases } from './readme-commands/databases.js';
import { freshDatabases } from './readme-commands/databases.js';
import { docCommands } from './readme-commands/extract.js';
import type { Served } from './readme-commands/shell.js';
import { freePortPair, runCommand, serveCommand } from './readme-commands/shell.js';
import { swapNames, type Names } from './production-runbook/names.js';
import type { RunbookNginx } from './production-runbook/nginx.js';
import { runbookNginxDaemon } from './production-runbook/nginx.js';

// docs/production.md, run as written: its commands in its order, with its
// names (public URL, issuer, replicas, database) swapped for what this
// test runs: the page's trial OpenID provider (the reference agent's `idp`,
// on a free port, its `demo` client in place of `ops-check` as the page
// says), two replicas (`npm start` as the runbook says) on a fresh
// PostgreSQL database, and nginx started by the page's own line with the
// page's block (the test's ports and replicas, files in a directory of its
// own). A command of a kind this test does not know fails it: the page and
// the test cannot drift apart.
const root = join(import.meta.dirname, '..');
const DOC = 'docs/production.md';
const markdown = readFileSync(join(root, DOC), 'utf8');
const commands = docCommands(DOC, markdown).map((c) => c.command);
const database = process.env.TASKWIRE_TEST_DATABASE_URL;
const READY = 'Press Ctrl+C to stop.';
const REPLICAS = 2;

describe('docs/production.md, step by step', () => {
  let nginxPorts: ReservedPorts;
  let names: Names;
  let databases: Databases;
  const replicas: Served[] = [];
  let idp: Served | undefined;
  let nginx: RunbookNginx | undefined;
  beforeAll(async () => {
    if (database === undefined) throw new Error('TASKWIRE_TEST_DATABASE_URL is needed (bash scripts/start-postgres.sh)');
    nginxPorts = await reservePorts();
    const publicUrl = `http://127.0.0.1:${nginxPorts.http}`;
    const idpPort = await freePortPair();
    databases = freshDatabases(root, database);
    const url = await databases.create('tw_runbook');
    const ports: number[] = [];
    for (let i = 0; i < REPLICAS; i++) ports.push(await freePortPair());
    names = { publicUrl, publicGrpc: nginxPorts.grpcUrl, issuer: `http://127.0.0.1:${idpPort}`, idpPort, database: url, replicaPorts: ports };
  });
  afterAll(async () => {
    for (const r of replicas) await r.stop();
    await nginx?.stop();
    await idp?.stop();
    await databases?.close();
  });

  const env: NodeJS.ProcessEnv = { ...process.env };
  async function expectRuns(line: string): Promise<string> {
    const ran = await runCommand(line, root, env);
    expect(ran.code, `$ ${line}\n${ran.stdout}${ran.stderr}`).toBe(0);
    return ran.stdout;
  }
  const readyz = async (port: number) => (await fetch(`http://127.0.0.1:${port}/readyz`)).status;

  it('runs every command of the page, as written, in order; the cluster serves through nginx with tokens, and survives a rolling restart', async () => {
    let replicaCommand: string | undefined;
    for (const command of commands) {
      const lines = swapNames(command, names);
      if (/^export \w+=/.test(command)) {
        const [, name, value] = /^export (\w+)=(.*)$/.exec(lines[0]!)!;
        env[name!] = (await runCommand(`printf %s ${value}`, root, env)).stdout;
      } else if (/^npx -y pnpm@[\d.]+ --filter @taskwire\/reference-agent idp -- /.test(command)) {
        // Step 2: the trial OpenID provider, serving until the end.
        idp = await serveCommand(lines[0]!, root, env, 'Call it:');
        expect(idp.stdout()).toContain(`issuer     ${names.issuer}`);
      } else if (/^npm start -- /.test(command)) {
        // Step 3: one process per replica.
        replicaCommand = command;
        for (const line of lines) {
          const served = await serveCommand(line, root, env, READY);
          expect(served.stdout()).toContain(`the card points clients at ${names.publicUrl}`);
          replicas.push(served);
        }
      } else if (/^nginx /.test(command)) {
        // Step 4: the page's line, twice: no nginx runs, so the first starts it; the second reloads the running one.
        nginx = await runbookNginxDaemon(markdown, names, nginxPorts);
        for (let i = 0; i < 2; i++) {
          const ran = await runCommand(nginx.command(lines[0]!), root, env);
          expect(ran.code, `$ ${lines[0]}\n${ran.stdout}${ran.stderr}${nginx.log()}`).toBe(0);
        }
      } else if (/^(npm run taskwire(-postgres)? -- |curl -fsS )/.test(command)) {
        for (const line of lines) {
          if (!/ --transport GRPC /.test(line)) await expectRuns(line);
          else {
            // The call over the card's gRPC interface, another origin than the URL given, with --trust-origin for it (-v names the transport).
            const ran = await runCommand(line, root, env);
            expect(ran.code, `$ ${line}\n${ran.stdout}${ran.stderr}`).toBe(0);
            expect(ran.stderr).toContain(`taskwire: using GRPC 1.0 at ${names.publicGrpc}`);
          }
        }
        if (/ contract /.test(command)) continue;
        if (/taskwire-postgres -- migrate/.test(command) && replicas.length > 0) {
          // Step 7.2, roll: each replica in turn stopped with SIGTERM (it drains), started again with its command, ready before the next.
          for (let i = 0; i < replicas.length; i++) {
            await replicas[i]!.stop('SIGTERM');
            replicas[i] = await serveCommand(swapNames(replicaCommand!, names)[i]!, root, env, READY);
            expect(await readyz(names.replicaPorts[i]!)).toBe(200);
            await expectRuns(swapNames(commands.find((c) => c.includes('taskwire -- send'))!, names)[0]!);
          }
        }
      } else {
        throw new Error(`${DOC} has a command this test does not know how to run: ${command}`);
      }
    }
    expect(replicas).toHaveLength(REPLICAS);
    // What the page says besides its commands: the card lists the public URLs only, and a call without a token is refused, saying how to give one.
    const card = (await (await fetch(`${names.publicUrl}/.well-known/agent-card.json`)).json()) as { supportedInterfaces: { url: string }[] };
    for (const i of card.supportedInterfaces) expect(i.url.includes(String(nginxPorts.http)) || i.url === names.publicGrpc, i.url).toBe(true);
    const anonymous = await runCommand(`npm run --silent taskwire -- list ${names.publicUrl}`, root, env);
    expect(anonymous.code).not.toBe(0);
    expect(anonymous.stderr).toMatch(/requires credentials and none is configured.*--issuer/s);
  }, 900_000);
});
