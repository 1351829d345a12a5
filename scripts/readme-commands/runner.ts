// Runs one document's commands in order, as classified.ts says (see there
// for the rules), and checks what they print.
import { dirname } from 'node:path';
import { expect } from 'vitest';
import { node22 } from '../node22.mjs';
import type { Classification } from './classified.js';
import type { DocCommand } from './extract.js';
import { printedCommands } from './extract.js';
import type { Served } from './shell.js';
import { freePortPair, runCommand, serveCommand } from './shell.js';

const READY = 'Press Ctrl+C to stop.';
/** The test OpenID provider's demo client (examples/reference-agent/src/test-idp-main.ts). */
const DEMO = { clientId: 'demo', clientSecret: 'demo-secret-change-me' };

/** What the runner needs from the test. */
export interface RunContext {
  readonly root: string;
  /** The port of an agent the test runs (no auth), which 8080 and 41241 reach until a command serves there. */
  readonly agentPort: number;
  /** A fresh database URL (for `export DATABASE_URL=...`). */
  database(): Promise<string>;
}

/** `line` with the docs' ports swapped: `{N}`, `:N` and `--port N` for every N in `ports`. */
export function swapPorts(line: string, ports: ReadonlyMap<number, number>): string {
  const to = (n: string) => String(ports.get(Number(n)) ?? n);
  return line.replace(/\{(\d{4,5})\}/g, (_, n: string) => to(n)).replace(/(:|--port )(\d{4,5})\b/g, (_, before: string, n: string) => `${before}${to(n)}`);
}

/** Asserts that a command ran well: exit 0 and no JSON-RPC error in what it printed. */
async function expectRuns(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const ran = await runCommand(command, cwd, env);
  const printed = `$ ${command}\n${ran.stdout}${ran.stderr}`;
  expect(ran.code, printed).toBe(0);
  expect(ran.stdout, printed).not.toMatch(/"error"\s*:\s*\{/);
  return ran.stdout;
}

/** A client-credentials token from the test provider whose banner is `idp`, for `audience`. */
async function demoToken(idp: string, audience: string): Promise<string> {
  const tokenUrl = /token URL\s+(\S+)/.exec(idp)![1]!;
  const response = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${btoa(`${DEMO.clientId}:${DEMO.clientSecret}`)}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: audience, scope: 'tasks:read tasks:write' }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

/**
 * Runs the "Try:" lines an agent printed at start, as a user would paste
 * them: with an OpenID provider, the demo client stands for "your client"
 * and `$TOKEN` is a token of the provider's.
 */
async function runTryLines(banner: string, root: string, env: NodeJS.ProcessEnv, idp: string | undefined): Promise<void> {
  const lines = printedCommands(banner, 'Try:\n', READY);
  expect(lines.length).toBeGreaterThan(0);
  const local = { ...env };
  for (const printed of lines) {
    const line = printed.replaceAll('YOUR_CLIENT_ID', DEMO.clientId).replaceAll('YOUR_CLIENT_SECRET', DEMO.clientSecret);
    const exported = /^export (\w+)=(\S+)$/.exec(line);
    if (exported) {
      local[exported[1]!] = exported[2]!;
      continue;
    }
    if (line.includes('$TOKEN')) {
      const audience = /--resource (\S+)/.exec(lines.join('\n'))?.[1];
      if (idp === undefined || audience === undefined) throw new Error(`a Try: line needs a token, with no provider running:\n${banner}`);
      local.TOKEN = await demoToken(idp, audience);
    }
    await expectRuns(line, root, local);
  }
}

/** Runs `commands` (one document's) as `classified` says; stops what they served at the end. */
export async function runDoc(commands: readonly DocCommand[], classified: Readonly<Record<string, Classification>>, context: RunContext): Promise<void> {
  const { root } = context;
  const ports = new Map<number, number>([
    [8080, context.agentPort],
    [41241, context.agentPort],
  ]);
  const own = new Set<number>();
  const servers = new Map<number | string, Served>();
  const env: NodeJS.ProcessEnv = { ...process.env };
  let idp: string | undefined;
  const withNode22 = (e: NodeJS.ProcessEnv) => ({ ...e, PATH: `${dirname(node22())}:${e.PATH ?? ''}` });
  const serve = async (docPort: number | undefined, line: string, ready: string, e: NodeJS.ProcessEnv) => {
    const key = docPort ?? line;
    await servers.get(key)?.stop();
    const served = await serveCommand(line, root, e, ready);
    servers.set(key, served);
    return served;
  };
  try {
    for (const { command } of commands) {
      const what = classified[command];
      // An unclassified command is reported by the classification test.
      if (what === undefined || what.kind === 'skip') continue;
      if (what.kind === 'env') {
        const [, name, value] = /^export (\w+)=(.*)$/.exec(command)!;
        env[name!] = what.given === 'database' ? await context.database() : (await runCommand(`printf %s ${value}`, root, env)).stdout;
        continue;
      }
      const e = what.node22 ? withNode22(env) : env;
      if (what.kind === 'run') {
        const line = swapPorts(what.via === 'clone' ? command.replace(/^taskwire /, 'npm run --silent taskwire -- ') : command, ports);
        await expectRuns(line, root, e);
        continue;
      }
      let line = command + (what.append ?? '');
      const isAgent = /\bnpm start\b/.test(command);
      const docPort = isAgent ? Number(/--port (\d+)/.exec(line)?.[1] ?? 41241) : what.append?.includes('{41250}') ? 41250 : undefined;
      if (isAgent && !/--port /.test(line)) line = line.includes('npm start -- ') ? `${line} --port 41241` : line.replace(/npm start$/, 'npm start -- --port 41241');
      if (docPort !== undefined && !own.has(docPort)) {
        ports.set(docPort, await freePortPair());
        own.add(docPort);
      }
      const served = await serve(docPort, swapPorts(line, ports), what.ready, e);
      if (what.banner) idp = served.stdout();
      if (isAgent && what.ready === READY) await runTryLines(served.stdout(), root, env, idp);
    }
    if (idp !== undefined) {
      // The test provider's banner: serve the agent as it says, then call it as it says.
      const [serveLine] = printedCommands(idp, 'Serve the agent:', 'Call it:');
      await serve(41241, serveLine!, READY, env);
      for (const line of printedCommands(idp, 'Call it:', '\u0000')) await expectRuns(line, root, env);
    }
  } finally {
    for (const served of servers.values()) await served.stop();
  }
}
