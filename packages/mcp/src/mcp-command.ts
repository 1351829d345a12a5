// `taskwire-mcp <agent-url>` as a function: the bridge on stdio, or Streamable HTTP with --http.
import { randomBytes } from 'node:crypto';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { stripControls } from '@taskwire/client';
import type { Logger } from '@taskwire/core';
import { AgentLink } from './agent-link.js';
import { parseMcpArgs, USAGE, UsageError } from './cli-args.js';
import { createMcpServer } from './create-server.js';
import type { SessionContext } from './http-server.js';
import { hostName } from './http-guard.js';
import { isLoopback, serveHttp } from './http-server.js';

/** Where the command writes (stdout is MCP's own on stdio: the command writes there only with --help). */
export interface McpCliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Stops the bridge (e.g. on SIGINT); without it the bridge runs until stdin ends (stdio) or forever (HTTP). */
  readonly signal?: AbortSignal;
}

/** One line per log entry on stderr, without the control, bidi or zero-width characters an agent may have put in it. */
function stderrLogger(stderr: McpCliIo['stderr']): Logger {
  const line = (level: string) => (fields: object, message?: string) =>
    void stderr.write(`${stripControls(`taskwire-mcp ${level}: ${message ?? ''} ${JSON.stringify(fields)}`).replaceAll('\n', ' ')}\n`);
  return { warn: line('warn'), error: line('error') };
}

/**
 * Runs `taskwire-mcp` with `argv` (after the script path): resolves the exit
 * code once the bridge stops (0), or at once for --help (0) and a bad
 * command line (2, with the reason and the usage on stderr).
 */
export async function runMcp(argv: readonly string[], io: McpCliIo): Promise<number> {
  let command;
  try {
    command = parseMcpArgs(argv, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`taskwire-mcp: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (command.help) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const logger = stderrLogger(io.stderr);
  const link = new AgentLink(command.agentUrl, command.client);
  if (command.cardRefreshMs > 0) link.refreshEvery(command.cardRefreshMs);
  const newServer = (session?: SessionContext) =>
    createMcpServer({
      agent: link,
      toolPrefix: command.toolPrefix,
      ...(command.timeoutMs !== undefined && { timeoutMs: command.timeoutMs }),
      ...(command.agentName !== undefined && { agentName: command.agentName }),
      ...(session && { scope: session.scope }),
      logger,
    });
  const stopped = new Promise<void>((resolve) => {
    if (io.signal?.aborted) resolve();
    io.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  if (command.httpPort !== undefined) {
    // Reachable from beyond this machine (a non-loopback --host, or an --allowed-host name a proxy forwards), a token is a must: made here when none was given, and printed once.
    const exposed = !isLoopback(command.host) || command.allowedHosts.some((name) => !isLoopback(hostName(name)));
    const made = command.bridgeToken === undefined && exposed ? randomBytes(32).toString('base64url') : undefined;
    const token = command.bridgeToken ?? made;
    const bridge = await serveHttp({
      port: command.httpPort,
      host: command.host,
      allowedHosts: command.allowedHosts,
      newServer,
      logger,
      ...(token !== undefined && { token }),
      ...(command.maxBodyBytes !== undefined && { maxBodyBytes: command.maxBodyBytes }),
      ...(command.sessionIdleMs !== undefined && { sessionIdleMs: command.sessionIdleMs }),
      ...(command.maxSessions !== undefined && { maxSessions: command.maxSessions }),
    });
    // One write, so that whoever reads the start lines gets them together.
    const lines = [`taskwire-mcp: serving ${command.agentUrl} over Streamable HTTP at ${bridge.url}`];
    if (made) lines.push(`taskwire-mcp: MCP clients must send Authorization: Bearer ${made} (shown once; set --bridge-token or TASKWIRE_MCP_TOKEN to choose it)`);
    else if (token !== undefined) lines.push('taskwire-mcp: MCP clients must send Authorization: Bearer <the token given>');
    if (exposed) lines.push('taskwire-mcp: warning: this bridge answers beyond loopback (--host or --allowed-host); whoever has the token calls the agent with the credentials given here');
    io.stderr.write(`${lines.join('\n')}\n`);
    await stopped;
    await bridge.close();
  } else {
    const server = await newServer();
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    process.stdin.once('end', () => void server.close());
    await server.connect(transport);
    await Promise.race([closed, stopped]);
    await server.close();
  }
  await link.close();
  return 0;
}
