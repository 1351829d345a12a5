import type { Part } from '@taskwire/core';
import { expect } from 'vitest';
import { requirement } from '../requirement.js';

const textOf = (parts: readonly Part[] | undefined) => parts?.map((p) => ('text' in p ? p.text : '')).join('') ?? '';

/** Seed 000: the sunset quote conversation, with its task-id rules. */
export const seedRequirements = [
  requirement(
    'seed-sunset-quote',
    '3.4.3',
    'quote -> input-required -> insta on the same task -> completed -> make it shorter as a new task referencing it',
    async (h) => {
      const a = await h.send('provide a sunset quote');
      expect(a.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(textOf(a.status.message?.parts)).toBe('Do you want Instagram, Pinterest, or General?');
      const a2 = await h.send('insta', { taskId: a.id, contextId: a.contextId });
      expect(a2.id).toBe(a.id);
      expect(a2.status.state).toBe('TASK_STATE_COMPLETED');
      const quote = textOf(a2.artifacts?.find((x) => x.name === 'quote')?.parts);
      expect(quote.length).toBeGreaterThan(0);
      const reuse = await h.error(h.send('make it shorter', { taskId: a.id, contextId: a.contextId }));
      expect(reuse.code).toBe(-32004);
      const b = await h.send('make it shorter', { contextId: a.contextId, referenceTaskIds: [a.id] });
      expect(b.id).not.toBe(a.id);
      expect(b.contextId).toBe(a.contextId);
      expect(b.status.state).toBe('TASK_STATE_COMPLETED');
      const shorter = textOf(b.artifacts?.find((x) => x.name === 'quote')?.parts);
      expect(shorter.length).toBeGreaterThan(0);
      expect(shorter.length).toBeLessThan(quote.length);
      const context = await h.client.unary('ListTasks', { contextId: a.contextId });
      expect(context.tasks.map((t) => t.id).sort()).toEqual([a.id, b.id].sort());
    },
  ),
];
