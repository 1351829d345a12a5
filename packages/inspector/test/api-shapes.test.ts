// The page's API against an agent whose answers have the wrong shape: each
// call answers an error naming what came and what was expected, so the page
// never reads a field of a wrong shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InspectorApi } from '../src/api.js';
import { serveHostileCases, validCard } from './hostile-agents.js';

let agents: Awaited<ReturnType<typeof serveHostileCases>>;
const api = new InspectorApi();
beforeAll(async () => {
  agents = await serveHostileCases([
    { name: 'answers an empty object', card: validCard, unary: { json: { tasks: [{ id: 'a' }], configs: 'none' } }, stream: { events: [{ statusUpdate: { status: {} } }] }, expected: /./ },
  ]);
});
afterAll(async () => {
  await api.close();
  await agents?.close();
});

describe('InspectorApi against answers of the wrong shape', () => {
  const url = () => `${agents.url}/case-0/card.json`;

  it.each([
    ['GetTask', { id: 'a' }, /^GetTask answered .*expected a Task .*: id: expected a string, got nothing/],
    ['ListTasks', {}, /^ListTasks answered .*expected \{tasks: \[\.\.\.\]\}: tasks\[0\]\.status: expected an object, got nothing/],
    ['ListTaskPushNotificationConfigs', { taskId: 'a' }, /expected \{configs: \[\.\.\.\]\}: configs: expected a list, got a string/],
  ])('%s answers an error that names the problem', async (method, params, message) => {
    const answer = (await api.call({ url: url(), method, params })) as { result?: unknown; error?: { message: string } };
    expect(answer.result).toBeUndefined();
    expect(answer.error?.message).toMatch(message);
  });

  it('a stream event of the wrong shape ends the stream with an error naming it', async () => {
    const sent: [string, unknown][] = [];
    const params = { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } };
    await api.stream({ url: url(), method: 'SendStreamingMessage', params }, (event, data) => sent.push([event, data]), new AbortController().signal);
    expect(sent).toEqual([['error', { message: expect.stringMatching(/SendStreamingMessage sent the event .*: statusUpdate\.taskId: expected a string, got nothing/) }]]);
  });
});
