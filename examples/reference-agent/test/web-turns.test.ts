import { routeNextMessage, viewOf } from '@taskwire/client';
import type { AgentCard, Message, StreamResponse, Task } from '@taskwire/core';
import { describe, expect, it } from 'vitest';
import { referenceAgentCard } from '../src/card.js';
import { onOrigin } from '../src/web/connect.js';
import { describeRoute } from '../src/web/render.js';
import { countChunks, stateLabel, trackState, turnsOf, type ChunkCounts, type TaskStates } from '../src/web/turns.js';

const user = (messageId: string, text: string, extra: Partial<Message> = {}): Message => ({ messageId, role: 'ROLE_USER', parts: [{ text }], ...extra });
const agentSays = (messageId: string, text: string): Message => ({ messageId, role: 'ROLE_AGENT', parts: [{ text }] });

/** Seed 000 as stream events: task A asks, is continued and completes with a quote; task B references it. */
const events: StreamResponse[] = [
  { message: user('u1', 'provide a sunset quote') },
  { task: { id: 'A', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' }, history: [user('u1', 'provide a sunset quote', { taskId: 'A', contextId: 'c' })] } },
  { statusUpdate: { taskId: 'A', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED', message: agentSays('a1', 'Which platform?') } } },
  { message: user('u2', 'insta', { taskId: 'A', contextId: 'c' }) },
  { statusUpdate: { taskId: 'A', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
  { artifactUpdate: { taskId: 'A', contextId: 'c', artifact: { artifactId: 'quote', parts: [{ text: 'Chasing sunsets' }] } } },
  { statusUpdate: { taskId: 'A', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED', message: agentSays('a2', 'Here it is.') } } },
  { message: user('u3', 'make it shorter', { contextId: 'c', referenceTaskIds: ['A'] }) },
  { task: { id: 'B', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' }, history: [user('u3', 'make it shorter', { taskId: 'B', contextId: 'c', referenceTaskIds: ['A'] })] } },
  { statusUpdate: { taskId: 'B', contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, metadata: { progress: { current: 1, total: 2 } } } },
];

function statesOf(list: readonly StreamResponse[]): TaskStates {
  const states: TaskStates = new Map();
  for (const event of list) trackState(states, event);
  return states;
}

describe('the progress of a task that ended early', () => {
  const slow = (current: number): StreamResponse[] => [
    { statusUpdate: { taskId: 'S', contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, metadata: { progress: { current, total: 10 } } } },
    { artifactUpdate: { taskId: 'S', contextId: 'c', artifact: { artifactId: 'output', parts: [{ text: `chunk ${current}\n` }] }, append: current > 1 } },
  ];
  const started: StreamResponse = { task: { id: 'S', contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, history: [user('u', 'slow 10', { taskId: 'S', contextId: 'c' })] } };
  const canceled: StreamResponse = { statusUpdate: { taskId: 'S', contextId: 'c', status: { state: 'TASK_STATE_CANCELED' } } };

  function progressAfter(list: StreamResponse[]) {
    const chunks: ChunkCounts = new Map();
    for (const event of list) countChunks(chunks, event);
    return turnsOf(viewOf(list), statesOf(list), chunks)[0]!.progress;
  }

  it('counts the chunks received once canceled (the agent had announced one more)', () => {
    // Progress 4 was announced, its chunk never came: the cancel came in between.
    const list = [started, ...slow(1), ...slow(2), ...slow(3), slow(4)[0]!, canceled];
    expect(progressAfter(list.slice(0, -1))).toEqual({ current: 4, total: 10 }); // while it runs: the agent's word
    expect(progressAfter(list)).toEqual({ current: 3, total: 10 });
  });

  it('counts from a snapshot (a reload) and the chunks after it', () => {
    const snapshot: StreamResponse = { task: { ...(started as { task: Task }).task, artifacts: [{ artifactId: 'output', parts: [{ text: 'chunk 1\n' }, { text: 'chunk 2\n' }] }] } };
    expect(progressAfter([snapshot, ...slow(3), slow(4)[0]!, canceled])).toEqual({ current: 3, total: 10 });
  });
});

describe('turnsOf (the page groups the conversation view by task)', () => {
  it('puts a continued task in one turn, keeps each task’s own state, and shows a sent message before its task is known in a turn of its own', () => {
    const turns = turnsOf(viewOf(events.slice(0, 8)), statesOf(events.slice(0, 8)));
    expect(turns.map((t) => [t.taskId, t.state, t.messages.map((m) => m.messageId)])).toEqual([
      ['A', 'TASK_STATE_COMPLETED', ['u1', 'a1', 'u2', 'a2']],
      [undefined, undefined, ['u3']],
    ]);
    expect(turns[0]!.artifacts.map((a) => a.artifact.artifactId)).toEqual(['quote']);
    expect(turns[1]!.referenceTaskIds).toEqual(['A']);
  });

  it('shows progress on the latest task only, and the referenced task stays completed', () => {
    const turns = turnsOf(viewOf(events), statesOf(events));
    expect(turns.map((t) => t.taskId)).toEqual(['A', 'B']);
    expect(turns[1]).toMatchObject({ state: 'TASK_STATE_WORKING', progress: { current: 1, total: 2 }, referenceTaskIds: ['A'] });
    expect(turns[1]!.messages.map((m) => m.messageId)).toEqual(['u3']);
    expect(turns.find((t) => t.taskId === 'A')).toMatchObject({ state: 'TASK_STATE_COMPLETED', progress: undefined });
  });

  it('gives a task with artifacts but no messages, and a latest task with neither, a turn at the end', () => {
    const list: StreamResponse[] = [
      { artifactUpdate: { taskId: 'X', contextId: 'c', artifact: { artifactId: 'out', parts: [{ text: 'x' }] } } },
      { statusUpdate: { taskId: 'Y', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
    ];
    expect(turnsOf(viewOf(list), statesOf(list)).map((t) => [t.taskId, t.state, t.artifacts.length])).toEqual([
      ['X', undefined, 1],
      ['Y', 'TASK_STATE_WORKING', 0],
    ]);
  });
});

describe('labels and routing words', () => {
  it('writes states as people do', () => {
    expect(stateLabel('TASK_STATE_INPUT_REQUIRED')).toBe('input-required');
    expect(stateLabel('TASK_STATE_COMPLETED')).toBe('completed');
    expect(stateLabel(undefined)).toBe('sending');
  });

  it("says where the next message goes, following the client's routing rule", () => {
    expect(describeRoute(routeNextMessage({}), undefined)).toBe('Your next message starts a new conversation.');
    expect(describeRoute(routeNextMessage({ contextId: 'c', taskId: 'task-a-0001', state: 'TASK_STATE_INPUT_REQUIRED' }), 'input-required')).toBe(
      'Your next message continues task task-a-0 (input-required).',
    );
    expect(describeRoute(routeNextMessage({ contextId: 'c', taskId: 'task-a-0001', state: 'TASK_STATE_COMPLETED' }), 'completed')).toBe(
      'Your next message starts a new task that references task-a-0.',
    );
  });
});

describe('onOrigin (the page calls the server that served it)', () => {
  it('moves HTTP interfaces onto the page origin, keeping paths, and leaves other bindings alone', () => {
    const card: AgentCard = referenceAgentCard([
      { url: 'http://127.0.0.1:41241/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'http://127.0.0.1:41241/a2a/rest?x=1', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: 'ws://127.0.0.1:41241/a2a/ws', protocolBinding: 'https://taskwire.dev/bindings/trpc-ws/v1', protocolVersion: '1.0' },
      { url: '127.0.0.1:41242', protocolBinding: 'GRPC', protocolVersion: '1.0' },
    ]);
    expect(onOrigin(card, 'http://localhost:41241').supportedInterfaces.map((i) => i.url)).toEqual([
      'http://localhost:41241/a2a/jsonrpc',
      'http://localhost:41241/a2a/rest?x=1',
      'ws://127.0.0.1:41241/a2a/ws',
      '127.0.0.1:41242',
    ]);
  });
});
