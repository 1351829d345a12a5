// Tool names and descriptions from an agent card.
import type { AgentCard, AgentSkill } from '@taskwire/core';

/** The tools the bridge always has (besides the skill tools). */
export const FIXED_TOOLS = ['get_task', 'list_tasks', 'cancel_task'] as const;

/** The tool of a card without skills. */
export const SEND_MESSAGE = 'send_message';

/** MCP's longest tool name. */
const MAX_NAME = 128;

/**
 * `raw` as an MCP tool name (1-128 of `A-Z a-z 0-9 _ - .`): every other
 * character becomes `_`, runs of `_` shrink to one, and the result is cut to
 * fit after `prefix`; an id with nothing usable becomes `skill`.
 */
export function sanitizeToolName(raw: string, prefix = ''): string {
  const cleaned = raw.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/_+/g, '_').replace(/^_+|_+$/g, '');
  return `${prefix}${cleaned || 'skill'}`.slice(0, MAX_NAME);
}

/**
 * One unique tool name per skill, in card order, none equal to a fixed tool
 * (with `prefix`): a clash gets `_2`, `_3`, ... appended.
 */
export function skillToolNames(skills: readonly AgentSkill[], prefix = ''): string[] {
  const taken = new Set([...FIXED_TOOLS, SEND_MESSAGE].map((name) => `${prefix}${name}`));
  return skills.map((skill) => {
    const base = sanitizeToolName(skill.id, prefix);
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base.slice(0, MAX_NAME - String(n).length - 1)}_${n}`;
    taken.add(name);
    return name;
  });
}

/** How to continue, said in every message tool's description. */
const CONTINUE =
  'Returns the agent\'s answer. When the agent asks a question (state input-required), answer by calling again with the returned taskId; pass contextId to stay in one conversation.';

/** The description of a skill's tool: the skill (name, description, examples), the agent, how to continue. */
export function skillDescription(skill: AgentSkill, card: AgentCard): string {
  const examples = skill.examples?.length ? ` Examples: ${skill.examples.map((e) => JSON.stringify(e)).join(', ')}.` : '';
  return `${skill.name}: ${skill.description}${examples} (A2A agent "${card.name}": ${card.description}) ${CONTINUE}`;
}

/** The description of `send_message` (a card without skills, or no card yet). */
export function sendMessageDescription(card: AgentCard | undefined): string {
  return `${card ? `Sends a message to the A2A agent "${card.name}": ${card.description}` : 'Sends a message to the A2A agent'}. ${CONTINUE}`;
}
