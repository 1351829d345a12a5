// What the PostgreSQL push tests share: an agent whose tasks wait for input
// or complete, and its messages (the card is core's pushTestCard).
import type { Agent } from '@taskwire/core';

/** `hold` waits for input; any other message (or the next one) completes the task. */
export const holdOrComplete: Agent = async (ctx) => (ctx.text === 'hold' ? ctx.inputRequired('send more') : ctx.complete('done'));

/** A user message with `text`, continuing task `taskId` when given. */
export const userMessage = (text: string, taskId?: string) => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }], ...(taskId ? { taskId } : {}) });
