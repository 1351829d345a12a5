import type { Agent, AgentExtension } from '@taskwire/core';
import { mapEvents, withExtensionFields } from './wrap-events.js';

const CORE_PATH = 'github.com/a2aproject/a2a-samples/extensions/timestamp/v1';

/** The Timestamp sample extension's URI (as the a2a-samples implementations in Python, JS, Go and Java spell it). */
export const TIMESTAMP_URI = `https://${CORE_PATH}`;
/** The metadata key of a message's or artifact's timestamp. */
export const TIMESTAMP_FIELD = `${CORE_PATH}/timestamp`;

/** The Timestamp extension's entry for an agent card's `capabilities.extensions`. */
export const timestampExtension: AgentExtension = { uri: TIMESTAMP_URI, description: 'Adds timestamps to messages and artifacts.' };

/**
 * `agent` with the Timestamp extension: when a request asks for it, it is
 * activated and every message and artifact the agent sends gets its
 * creation time (RFC 3339, UTC, millisecond precision) in its metadata
 * under {@link TIMESTAMP_FIELD}, with the extension's URI in its
 * `extensions`. A request that does not ask for it gets the agent's
 * events unchanged. `now` is the clock (default `Date.now`).
 */
export function withTimestamps(agent: Agent, now: () => number = Date.now): Agent {
  return (ctx) => (ctx.extensions.activate(TIMESTAMP_URI) ? stamped(agent, now)(ctx) : agent(ctx));
}

function stamped(agent: Agent, now: () => number): Agent {
  return mapEvents(agent, (event) => withExtensionFields(event, TIMESTAMP_URI, { [TIMESTAMP_FIELD]: new Date(now()).toISOString() }));
}

/** The timestamp a message or artifact carries under {@link TIMESTAMP_FIELD}, if any. */
export function timestampOf(item: { readonly metadata?: Readonly<Record<string, unknown>> | undefined } | undefined): string | undefined {
  const value = item?.metadata?.[TIMESTAMP_FIELD];
  return typeof value === 'string' ? value : undefined;
}
