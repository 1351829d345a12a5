import { A2AError } from '@taskwire/core';
import type { TransportRegistry } from '../agent-card.js';
import { AgentCardError, fetchAgentCard } from '../agent-card.js';
import { CredentialOriginError } from '../auth/origins.js';
import type { A2AClient } from '../client.js';
import type { CreateClientOptions } from '../create-client.js';
import { createClient } from '../create-client.js';
import { DEFAULT_TRANSPORTS } from '../default-transports.js';
import { nodeTransports } from '../node-transports.js';
import { isTransient } from '../transient.js';
import type { CliArgs } from './args.js';
import { parseCliArgs, USAGE, UsageError } from './args.js';
import * as commands from './commands.js';
import type { InspectorModule } from './inspect.js';
import { INSPECTOR_MISSING, loadInspector } from './inspect.js';
import type { McpModule } from './mcp.js';
import { loadMcp, MCP_MISSING } from './mcp.js';
import { COMPANION_DIR_VARIABLE } from './optional-package.js';
import type { CompanionIo } from './optional-package.js';
import type { CommandContext } from './commands.js';
import { tokenProviderOf } from './credentials.js';
import { escapeJsonControls, REWRITE_LINE, stripControls } from './terminal.js';
import { loadState, saveState, statePath } from './state-file.js';
import { describeConnection, preferredBindings } from './targets.js';

/** Exit codes of the `taskwire` CLI (3 also when credentials would go to an origin not trusted). */
export const EXIT = { ok: 0, agentFailure: 1, usage: 2, unreachable: 3 } as const;

/** Where the CLI reads and writes, so tests can run it in-process. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(text: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The home folder (for the default state file). */
  readonly home: string;
  /** Aborted on Ctrl-C: ends a `watch` or `stream` without canceling the task. */
  readonly signal?: AbortSignal;
  /** Makes clients (default: `createClient` with the Node transports that are installed). */
  readonly connect?: (url: string, options: CreateClientOptions) => Promise<A2AClient>;
  /** Loads `@taskwire/inspector` for `taskwire inspect` (default: `loadInspector`, undefined when it is not installed). */
  readonly inspector?: () => Promise<InspectorModule | undefined>;
  /** Loads `@taskwire/mcp` for `taskwire mcp` (default: `loadMcp`, undefined when it is not installed). */
  readonly mcp?: () => Promise<McpModule | undefined>;
}

/**
 * `taskwire inspect ...` and `taskwire mcp ...`: handed whole to the
 * companion package (its options are its own) with the same output,
 * environment and Ctrl-C, or says how to install it (usage exit code).
 */
async function handOver<M>(loaded: M | undefined, missing: string, run: (module: M, io: CompanionIo) => Promise<number>, io: CliIo): Promise<number> {
  if (!loaded) {
    io.stderr.write(`taskwire: ${missing}\n`);
    return EXIT.usage;
  }
  return run(loaded, { stdout: io.stdout, stderr: io.stderr, env: io.env, ...(io.signal && { signal: io.signal }) });
}

function clientOptions(args: CliArgs, env: CliIo['env'], transports: TransportRegistry): CreateClientOptions {
  const apiKey = args.apiKey ?? env.TASKWIRE_API_KEY;
  const headers = { ...(apiKey && { 'x-api-key': apiKey }), ...args.headers };
  const preferred = preferredBindings(args.transports, Object.keys({ ...DEFAULT_TRANSPORTS, ...transports }));
  const auth = tokenProviderOf(args, env);
  return {
    transports,
    ...(auth && { auth }),
    ...(Object.keys(headers).length > 0 && { headers }),
    ...(args.extensions.length > 0 && { extensions: args.extensions }),
    ...(preferred.length > 0 && { preferred }),
    ...(args.trustedOrigins.length > 0 && { trustedOrigins: args.trustedOrigins }),
  };
}

/** Says what went wrong and returns the exit code for it. */
function report(error: unknown, io: CliIo): number {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof UsageError) {
    io.stderr.write(`taskwire: ${message}\nRun taskwire --help for usage.\n`);
    return EXIT.usage;
  }
  if (error instanceof AgentCardError || error instanceof CredentialOriginError || isTransient(error)) {
    io.stderr.write(`taskwire: ${message}\n`);
    return EXIT.unreachable;
  }
  if (A2AError.is(error)) {
    io.stderr.write(`taskwire: the agent answered ${error.kind} (${error.code}): ${message}\n`);
    return EXIT.agentFailure;
  }
  io.stderr.write(`taskwire: ${message}\n`);
  return EXIT.agentFailure;
}

/**
 * Runs the `taskwire` CLI on `argv` (without the node and script paths) and
 * resolves with its exit code: 0 success, 1 the agent failed, 2 usage
 * error, 3 the agent could not be reached. Never throws.
 */
export async function main(argv: readonly string[], given: CliIo): Promise<number> {
  // Errors and --verbose lines quote what agents send (cards, error messages): never raw to the terminal.
  const io: CliIo = { ...given, stderr: { write: (text: string) => given.stderr.write(stripControls(text)) } };
  try {
    const rest = argv.slice(1);
    // Companions load from beside the CLI or a directory the user names, never from the current directory.
    const companions = given.env[COMPANION_DIR_VARIABLE] || undefined;
    if (argv[0] === 'inspect') return await handOver(await (given.inspector ?? (() => loadInspector(companions)))(), INSPECTOR_MISSING, (m, to) => m.runInspect(rest, to), given);
    // On stdio the MCP bridge owns stdout: it writes there itself (only --help goes through io.stdout).
    if (argv[0] === 'mcp') return await handOver(await (given.mcp ?? (() => loadMcp(companions)))(), MCP_MISSING, (m, to) => m.runMcp(rest, to), given);
    const args = parseCliArgs(argv);
    if (args.help || args.command === undefined || args.command === 'help') {
      (args.command === undefined && !args.help ? io.stderr : io.stdout).write(`${USAGE}\n`);
      return args.command === undefined && !args.help ? EXIT.usage : EXIT.ok;
    }
    const out = (text: string) => void io.stdout.write(args.json ? escapeJsonControls(text) : stripControls(text));
    const path = statePath(args.state, io.env, io.home);
    const state = await loadState(path);
    const transports = await nodeTransports();
    const options = clientOptions(args, io.env, transports);
    const ctx: CommandContext = {
      args,
      state,
      interactive: io.stdout.isTTY === true && !args.json,
      signal: io.signal,
      print: out,
      rewrite: (line) => void io.stdout.write(`${REWRITE_LINE}${stripControls(line)}`),
      connect: async (url) => {
        const client = await (io.connect ?? createClient)(url, options);
        if (args.verbose) io.stderr.write(describeConnection(client));
        return client;
      },
      save: (next) => saveState(path, next),
      card: (url) => fetchAgentCard(url, { headers: options.headers, trustedOrigins: options.trustedOrigins }),
    };
    switch (args.command) {
      case 'send':
        return await commands.send(ctx);
      case 'stream':
        return await commands.stream(ctx);
      case 'get':
        return await commands.get(ctx, io.env);
      case 'list':
        return await commands.list(ctx, io.env);
      case 'cancel':
        return await commands.cancel(ctx, io.env);
      case 'watch':
        return await commands.watch(ctx, io.env);
      case 'card':
        return await commands.card(ctx);
      default:
        throw new UsageError(`unknown command "${args.command}"; the commands are send, stream, get, list, cancel, watch, card, inspect and mcp`);
    }
  } catch (error) {
    return report(error, io);
  }
}
