import { describe, expect, it } from 'vitest';
import type { MethodName } from '../methods.js';
import { METHODS } from '../methods.js';
import type { AgentCard, Task } from '../schema/index.js';
import { AgentCardSchema } from '../schema/index.js';
import { agentCardToV03, agentCardToV1 } from './v03-card.js';
import { isV03Shaped, v03ResultToV1, v1ResultToV03 } from './v03-results.js';

const task: Task = {
  id: 't1',
  contextId: 'c1',
  status: { state: 'TASK_STATE_COMPLETED', timestamp: '2025-01-01T00:00:00.000Z' },
  artifacts: [{ artifactId: 'a', parts: [{ text: 'x' }] }],
  history: [{ messageId: 'u1', role: 'ROLE_USER', parts: [{ text: 'echo x' }], taskId: 't1', contextId: 'c1' }],
};
const v03Task = {
  kind: 'task',
  id: 't1',
  contextId: 'c1',
  status: { state: 'completed', timestamp: '2025-01-01T00:00:00.000Z' },
  artifacts: [{ artifactId: 'a', parts: [{ kind: 'text', text: 'x' }] }],
  history: [{ kind: 'message', messageId: 'u1', role: 'user', parts: [{ kind: 'text', text: 'echo x' }], taskId: 't1', contextId: 'c1' }],
};
const push = { taskId: 't1', id: 'c1', url: 'https://hook.test/h', token: 'tok', authentication: { scheme: 'Bearer' } };
const v03Push = { taskId: 't1', pushNotificationConfig: { id: 'c1', url: 'https://hook.test/h', token: 'tok', authentication: { schemes: ['Bearer'] } } };

/** v1.0 results and the v0.3 results they become: [name, method, v1.0, v0.3]. */
const RESULTS: [string, MethodName, unknown, unknown][] = [
  ['SendMessage task: the bare task with kind, not { task }', 'SendMessage', { task }, v03Task],
  [
    'SendMessage message: the bare message with kind',
    'SendMessage',
    { message: { messageId: 'a1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } },
    { kind: 'message', messageId: 'a1', role: 'agent', parts: [{ kind: 'text', text: 'hi' }] },
  ],
  ['SendStreamingMessage item', 'SendStreamingMessage', { task }, v03Task],
  [
    'SubscribeToTask item',
    'SubscribeToTask',
    { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_AUTH_REQUIRED' } } },
    { kind: 'status-update', taskId: 't1', contextId: 'c1', status: { state: 'auth-required' }, final: true },
  ],
  ['GetTask', 'GetTask', task, v03Task],
  ['CancelTask', 'CancelTask', task, v03Task],
  [
    'ListTasks keeps its page fields',
    'ListTasks',
    { tasks: [task], nextPageToken: '', pageSize: 50, totalSize: 1 },
    { tasks: [v03Task], nextPageToken: '', pageSize: 50, totalSize: 1 },
  ],
  ['CreateTaskPushNotificationConfig', 'CreateTaskPushNotificationConfig', push, v03Push],
  ['GetTaskPushNotificationConfig', 'GetTaskPushNotificationConfig', push, v03Push],
  ['ListTaskPushNotificationConfigs: a bare array', 'ListTaskPushNotificationConfigs', { configs: [push] }, [v03Push]],
  ['DeleteTaskPushNotificationConfig: null', 'DeleteTaskPushNotificationConfig', {}, null],
];

describe('v0.3 results', () => {
  it.each(RESULTS)('%s', (_name, method, v1, v03) => {
    const out = JSON.parse(JSON.stringify(v1ResultToV03(method, v1)));
    expect(out).toEqual(v03);
    const back = v03ResultToV1(method, out);
    expect(back).toEqual(v1);
    expect(METHODS[method].result.parse(back)).toEqual(v1);
  });

  it('reads v1.0-shaped results unchanged', () => {
    expect(v03ResultToV1('SendMessage', { task })).toEqual({ task });
    expect(v03ResultToV1('ListTaskPushNotificationConfigs', { configs: [] })).toEqual({ configs: [] });
  });

  it('reads a kind-less task (the "task-like" shape of seed 002) as a task', () => {
    const { kind: _kind, ...kindless } = v03Task;
    expect(v03ResultToV1('SendMessage', kindless)).toEqual({ task });
  });
});

const card: AgentCard = {
  name: 'Agent',
  description: 'Does things',
  supportedInterfaces: [
    { url: 'http://127.0.0.1:1/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'http://127.0.0.1:1/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 'acme' },
  ],
  version: '1.2.3',
  capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: true },
  securitySchemes: {
    key: { apiKeySecurityScheme: { location: 'header', name: 'x-api-key' } },
    bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
    oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://auth.test/token', scopes: { read: 'Read' } } } } },
    oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://auth.test/.well-known/openid-configuration' } },
    mtls: { mtlsSecurityScheme: { description: 'client certificates' } },
  },
  securityRequirements: [{ schemes: { key: { list: [] } } }, { schemes: { oauth: { list: ['read'] } } }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'], securityRequirements: [{ schemes: { bearer: { list: [] } } }] }],
};

describe('v0.3 agent cards', () => {
  it('writes the v0.3 card fields', () => {
    const v03 = agentCardToV03(card);
    expect(v03).toMatchObject({
      protocolVersion: '0.3.0',
      url: 'http://127.0.0.1:1/a2a/jsonrpc',
      preferredTransport: 'JSONRPC',
      supportsAuthenticatedExtendedCard: true,
      capabilities: { streaming: true, pushNotifications: false },
      securitySchemes: {
        key: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        bearer: { type: 'http', scheme: 'Bearer', bearerFormat: 'JWT' },
        oauth: { type: 'oauth2' },
        oidc: { type: 'openIdConnect' },
        mtls: { type: 'mutualTLS' },
      },
      security: [{ key: [] }, { oauth: ['read'] }],
      skills: [{ id: 's', security: [{ bearer: [] }] }],
    });
    expect(v03).not.toHaveProperty('supportedInterfaces');
    expect((v03.additionalInterfaces as { transport: string }[]).map((i) => i.transport)).toEqual(['JSONRPC', 'HTTP+JSON']);
  });

  it('round-trips to the same valid v1.0 card', () => {
    const back = agentCardToV1(JSON.parse(JSON.stringify(agentCardToV03(card))));
    expect(back).toEqual(card);
    expect(AgentCardSchema.parse(back)).toEqual(card);
  });

  it('reads a plain v0.3 card (url, preferredTransport, no extras)', () => {
    const back = agentCardToV1({
      protocolVersion: '0.3.0',
      name: 'Old',
      description: 'v0.3 agent',
      url: 'https://old.test/a2a',
      version: '1',
      capabilities: { streaming: true, stateTransitionHistory: false },
      defaultInputModes: ['text'],
      defaultOutputModes: ['text'],
      skills: [],
      additionalInterfaces: [{ url: 'https://old.test/grpc', transport: 'GRPC' }],
    });
    expect(back.supportedInterfaces).toEqual([
      { url: 'https://old.test/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: 'https://old.test/grpc', protocolBinding: 'GRPC', protocolVersion: '0.3' },
    ]);
    expect(AgentCardSchema.safeParse(back).success).toBe(true);
  });

  it('is what GetExtendedAgentCard answers v0.3 callers', () => {
    expect(v1ResultToV03('GetExtendedAgentCard', card)).toEqual(agentCardToV03(card));
    expect(v03ResultToV1('GetExtendedAgentCard', agentCardToV03(card))).toEqual(card);
  });
});

describe('isV03Shaped', () => {
  it.each([
    [{ kind: 'task', id: 't' }, true],
    [{ kind: 'status-update' }, true],
    [{ kind: 'text', text: 'a' }, true],
    [{ task: { id: 't' } }, false],
    [{ statusUpdate: {} }, false],
    [{ kind: 3 }, false],
    [null, false],
    [['kind'], false],
    ['task', false],
  ])('%j -> %s', (value, expected) => {
    expect(isV03Shaped(value)).toBe(expected);
  });
});
