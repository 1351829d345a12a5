// What a `main.ts` of the reference setup does around serving (the reference
// agent's, and examples/ai-sdk-agent's): read the options, stop on signals.
import type { AgentOptions } from './options.js';
import { parseOptions, USAGE } from './options.js';
import type { RunningAgent } from './serve-all.js';

/** The command line's options (`--` ignored); on bad options prints them with the usage and exits 2, on `--help` prints the usage and exits 0. */
export function optionsOrExit(argv: readonly string[] = process.argv.slice(2)): AgentOptions {
  let options;
  try {
    options = parseOptions(argv.filter((a) => a !== '--'));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (options === 'help') {
    console.log(USAGE);
    process.exit(0);
  }
  return options;
}

/**
 * Stops `agent` on the first SIGINT or SIGTERM: SIGTERM (an orchestrator)
 * drains, giving running agents `drainGraceMs`; Ctrl+C stops them at once.
 * Then runs `after` (flushing telemetry, say) and exits 0, or 1 when
 * stopping failed.
 */
export function stopOnSignals(agent: RunningAgent, drainGraceMs: number, after: () => unknown = () => undefined): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      const graceMs = signal === 'SIGTERM' ? drainGraceMs : 0;
      console.log(`\n${signal}: stopping${graceMs > 0 ? ` (running agents get ${graceMs} ms to finish)` : ''}…`);
      agent.close(graceMs).then(
        () => Promise.resolve(after()).finally(() => process.exit(0)),
        (error: Error) => {
          console.error(`error while stopping: ${error.message}`);
          process.exit(1);
        },
      );
    });
  }
}

/** The URLs `agent` serves, one labelled line each (indented two spaces), as the mains print them. */
export function urlLines(agent: RunningAgent): string {
  const { jsonRpc, rest, ws, grpc, card, page } = agent.urls;
  return [`JSON-RPC   ${jsonRpc}`, `HTTP+JSON  ${rest}`, `WebSocket  ${ws}`, `gRPC       ${grpc}`, `card       ${card}`, `web page   ${page}`].map((l) => `  ${l}`).join('\n');
}
