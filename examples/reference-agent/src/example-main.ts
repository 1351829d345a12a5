// What the examples that serve another framework's agent on the reference
// setup (examples/*-agent) share: their card's defaults, and their main.
import type { Agent, AgentCard, AgentSkill } from '@taskwire/core';
import { optionsOrExit, stopOnSignals, urlLines } from './command-line.js';
import { consoleLogger } from './console-logger.js';
import { serveAll } from './serve-all.js';

/** An example's card: its name, description and skills, text in and out, streaming; the server adds its interfaces. */
export function exampleCard(name: string, description: string, skills: AgentSkill[]): AgentCard {
  return {
    name,
    description,
    supportedInterfaces: [],
    version: '0.1.0',
    capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills,
  };
}

/** What {@link serveExample} serves and says. */
export interface Example {
  /** The first line it prints: what it is and what it runs on. */
  readonly title: string;
  readonly agent: Agent;
  readonly card: AgentCard;
  /** The messages its `Try:` lines send (`npm run taskwire -- send <url> "<message>"`), each with an optional comment. */
  readonly tries: readonly (readonly [message: string, comment?: string])[];
}

/**
 * An example's `npm start`: serves `example` on every transport of the
 * reference setup with the reference agent's options (--port, --store,
 * ...), prints its title, URLs and `Try:` lines, then `Press Ctrl+C to
 * stop.`, and stops on SIGINT/SIGTERM. Exits 1 when it cannot start.
 */
export async function serveExample(example: Example): Promise<void> {
  const options = optionsOrExit();
  const running = await serveAll(options, consoleLogger(), { agent: example.agent, card: example.card }).catch((error: Error) => {
    console.error(`Could not start: ${error.message}`);
    process.exit(1);
  });
  const tries = example.tries.map(([message, comment]) => `  npm run taskwire -- send ${running.baseUrl} "${message}"${comment ? `   # ${comment}` : ''}`);
  console.log(`${example.title}\n${urlLines(running)}\nTry:\n${tries.join('\n')}\nPress Ctrl+C to stop.`);
  stopOnSignals(running, options.drainGraceMs);
}
