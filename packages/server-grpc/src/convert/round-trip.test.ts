import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AgentCapabilities, AgentCard, AgentExtension, AgentInterface, AgentSkill, TaskPushNotificationConfig } from '@taskwire/core';
import * as schemas from '@taskwire/core';
import { describe, expect, it } from 'vitest';
import * as pb from '../gen/lf/a2a/v1/a2a.js';
import { fromAgentCard, fromSecurityScheme, toAgentCard, toSecurityScheme } from './agent-card.js';
import { RPC_CODECS } from './codecs.js';
import * as msg from './messages.js';
import * as req from './requests.js';

// Every message of lf.a2a.v1 goes core -> proto -> bytes -> proto -> core
// and must come back as it went in, up to what proto3 cannot tell apart
// (an empty string, list or false flag is the same as an absent one).
// Inputs: core's corpus of valid wire messages, plus cases written here.

interface MessageType<P> {
  encode(message: P): { finish(): Uint8Array };
  decode(bytes: Uint8Array): P;
}

/** core -> proto -> bytes -> proto -> core with one message type's converters. */
function via<P, C>(type: MessageType<P>, to: (value: C) => P, from: (message: P) => C) {
  return (value: C): C => from(type.decode(type.encode(to(value)).finish()));
}

/** Round-trips a value placed inside a wrapper message, and takes it back out. */
function inside<W>(wrap: (value: unknown) => W, roundTrip: (wrapper: W) => W, unwrap: (wrapper: W) => unknown) {
  return (value: unknown): unknown => unwrap(roundTrip(wrap(value)));
}

const card = (extra: Partial<AgentCard> = {}): AgentCard => ({
  name: 'n',
  description: 'd',
  supportedInterfaces: [{ url: 'h:1', protocolBinding: 'GRPC', protocolVersion: '1.0' }],
  version: '1',
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
  ...extra,
});
const cardTrip = via(pb.AgentCard, toAgentCard, fromAgentCard);
const viaCard = (put: (value: unknown) => Partial<AgentCard>, take: (card: AgentCard) => unknown) => inside((v) => card(put(v)), cardTrip, take);
const sendTrip = (v: unknown) => RPC_CODECS.SendMessage.request.decode(RPC_CODECS.SendMessage.request.encode(v as never));
const bytes = <M extends schemas.MethodName>(method: M, side: 'request' | 'response') => {
  const codec = RPC_CODECS[method][side] as { encode(v: unknown): Buffer; decode(b: Uint8Array): unknown };
  return (value: unknown) => codec.decode(codec.encode(value));
};
const part = via(pb.Part, msg.toPart, msg.fromPart);

/** The round trip of each core schema, and the proto messages it exercises. */
const ROUND_TRIPS: Record<string, { readonly trip: (value: never) => unknown; readonly proto: readonly string[] }> = {
  PartSchema: { trip: part, proto: ['Part'] },
  TextPartSchema: { trip: part, proto: ['Part'] },
  RawPartSchema: { trip: part, proto: ['Part'] },
  UrlPartSchema: { trip: part, proto: ['Part'] },
  DataPartSchema: { trip: part, proto: ['Part'] },
  MessageSchema: { trip: via(pb.Message, msg.toMessage, msg.fromMessage), proto: ['Message'] },
  ArtifactSchema: { trip: via(pb.Artifact, msg.toArtifact, msg.fromArtifact), proto: ['Artifact'] },
  TaskStatusSchema: { trip: via(pb.TaskStatus, msg.toTaskStatus, msg.fromTaskStatus), proto: ['TaskStatus'] },
  TaskSchema: { trip: bytes('GetTask', 'response'), proto: ['Task'] },
  TaskStatusUpdateEventSchema: { trip: via(pb.TaskStatusUpdateEvent, msg.toStatusUpdate, msg.fromStatusUpdate), proto: ['TaskStatusUpdateEvent'] },
  TaskArtifactUpdateEventSchema: { trip: via(pb.TaskArtifactUpdateEvent, msg.toArtifactUpdate, msg.fromArtifactUpdate), proto: ['TaskArtifactUpdateEvent'] },
  StreamResponseSchema: { trip: bytes('SendStreamingMessage', 'response'), proto: ['StreamResponse'] },
  SendMessageResponseSchema: { trip: bytes('SendMessage', 'response'), proto: ['SendMessageResponse'] },
  SendMessageRequestSchema: { trip: sendTrip, proto: ['SendMessageRequest'] },
  SendMessageConfigurationSchema: {
    trip: inside((configuration) => ({ configuration }), sendTrip, (r) => (r as { configuration: unknown }).configuration),
    proto: ['SendMessageConfiguration'],
  },
  GetTaskRequestSchema: { trip: bytes('GetTask', 'request'), proto: ['GetTaskRequest'] },
  ListTasksRequestSchema: { trip: bytes('ListTasks', 'request'), proto: ['ListTasksRequest'] },
  ListTasksResponseSchema: { trip: bytes('ListTasks', 'response'), proto: ['ListTasksResponse'] },
  CancelTaskRequestSchema: { trip: bytes('CancelTask', 'request'), proto: ['CancelTaskRequest'] },
  SubscribeToTaskRequestSchema: {
    // afterSequence is not a field of the proto message: it travels in metadata.
    trip: (value: { afterSequence?: number }) => ({ ...(bytes('SubscribeToTask', 'request')(value) as object), ...(value.afterSequence !== undefined && { afterSequence: value.afterSequence }) }),
    proto: ['SubscribeToTaskRequest'],
  },
  TaskPushNotificationConfigSchema: { trip: via(pb.TaskPushNotificationConfig, req.toPushConfig, req.fromPushConfig), proto: ['TaskPushNotificationConfig'] },
  CreatePushConfigRequestSchema: { trip: bytes('CreateTaskPushNotificationConfig', 'request'), proto: ['TaskPushNotificationConfig'] },
  AuthenticationInfoSchema: {
    trip: inside(
      (authentication) => ({ url: 'https://h/x', authentication }) as TaskPushNotificationConfig,
      via(pb.TaskPushNotificationConfig, req.toPushConfig, req.fromPushConfig),
      (c) => c.authentication,
    ),
    proto: ['AuthenticationInfo'],
  },
  PushConfigRefSchema: { trip: bytes('GetTaskPushNotificationConfig', 'request'), proto: ['GetTaskPushNotificationConfigRequest', 'DeleteTaskPushNotificationConfigRequest'] },
  ListPushConfigsRequestSchema: { trip: bytes('ListTaskPushNotificationConfigs', 'request'), proto: ['ListTaskPushNotificationConfigsRequest'] },
  ListPushConfigsResponseSchema: { trip: bytes('ListTaskPushNotificationConfigs', 'response'), proto: ['ListTaskPushNotificationConfigsResponse'] },
  GetExtendedAgentCardRequestSchema: { trip: bytes('GetExtendedAgentCard', 'request'), proto: ['GetExtendedAgentCardRequest'] },
  EmptySchema: { trip: bytes('DeleteTaskPushNotificationConfig', 'response'), proto: [] },
  AgentCardSchema: { trip: bytes('GetExtendedAgentCard', 'response'), proto: ['AgentCard'] },
  AgentInterfaceSchema: { trip: viaCard((i) => ({ supportedInterfaces: [i as AgentInterface] }), (c) => c.supportedInterfaces[0]), proto: ['AgentInterface'] },
  AgentProviderSchema: { trip: viaCard((provider) => ({ provider: provider as AgentCard['provider'] }), (c) => c.provider), proto: ['AgentProvider'] },
  AgentCapabilitiesSchema: { trip: viaCard((capabilities) => ({ capabilities: capabilities as AgentCapabilities }), (c) => c.capabilities), proto: ['AgentCapabilities'] },
  AgentExtensionSchema: {
    trip: viaCard((e) => ({ capabilities: { extensions: [e as AgentExtension] } }), (c) => c.capabilities.extensions?.[0]),
    proto: ['AgentExtension'],
  },
  AgentSkillSchema: { trip: viaCard((s) => ({ skills: [s as AgentSkill] }), (c) => c.skills[0]), proto: ['AgentSkill'] },
  AgentCardSignatureSchema: { trip: viaCard((s) => ({ signatures: [s as NonNullable<AgentCard['signatures']>[number]] }), (c) => c.signatures?.[0]), proto: ['AgentCardSignature'] },
  SecurityRequirementSchema: {
    trip: viaCard((r) => ({ securityRequirements: [r as NonNullable<AgentCard['securityRequirements']>[number]] }), (c) => c.securityRequirements?.[0]),
    proto: ['SecurityRequirement', 'StringList'],
  },
  SecuritySchemeSchema: { trip: via(pb.SecurityScheme, toSecurityScheme, fromSecurityScheme), proto: ['SecurityScheme'] },
};

/** Proto messages reached only inside the ones above, checked by the fixtures that contain them. */
const NESTED = [
  'APIKeySecurityScheme',
  'HTTPAuthSecurityScheme',
  'OAuth2SecurityScheme',
  'OpenIdConnectSecurityScheme',
  'MutualTlsSecurityScheme',
  'OAuthFlows',
  'AuthorizationCodeOAuthFlow',
  'ClientCredentialsOAuthFlow',
  'ImplicitOAuthFlow',
  'PasswordOAuthFlow',
  'DeviceCodeOAuthFlow',
];

/** What proto3 cannot tell from absent: empty strings, empty lists, false flags. Timestamps to milliseconds. */
function normal(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normal);
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(value)) return new Date(value).toISOString();
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === '' || item === false || item === undefined || (Array.isArray(item) && item.length === 0)) continue;
    out[key] = normal(item);
  }
  return out;
}

const corpusDir = fileURLToPath(new URL('../../../core/src/schema/fixtures/valid/', import.meta.url));
const corpus = readdirSync(corpusDir)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => [file, JSON.parse(readFileSync(corpusDir + file, 'utf8')) as { schema: string; value: unknown }] as const);

describe('core fixture corpus round trips through protobuf', () => {
  const covered = corpus.filter(([, f]) => f.schema in ROUND_TRIPS);
  it.each(covered)('%s', (_file, fixture) => {
    const schema = (schemas as unknown as Record<string, { parse(v: unknown): unknown; safeParse(v: unknown): { success: boolean } }>)[fixture.schema]!;
    const parsed = schema.parse(fixture.value);
    const back = ROUND_TRIPS[fixture.schema]!.trip(parsed as never);
    expect(normal(back)).toEqual(normal(parsed));
    expect(schema.safeParse(back).success).toBe(true);
  });

  it('covers every message type of lf.a2a.v1 and every fixture that is a message', () => {
    const reached = new Set([...Object.values(ROUND_TRIPS).flatMap((r) => r.proto), ...NESTED]);
    const generated = Object.entries(pb)
      .filter(([name, value]) => typeof (value as { encode?: unknown }).encode === 'function' && !name.endsWith('Entry'))
      .map(([name]) => name);
    expect(generated.filter((name) => !reached.has(name))).toEqual([]);
    const scalars = ['IdSchema', 'NonNegativeIntSchema', 'RoleSchema', 'TaskStateSchema', 'TenantSchema', 'TimestampSchema', 'StructSchema', 'GenerationSchema'];
    expect(corpus.filter(([, f]) => !(f.schema in ROUND_TRIPS) && !scalars.includes(f.schema)).map(([file]) => file)).toEqual([]);
  });

  it('reaches every security scheme kind and OAuth flow through the corpus', () => {
    const [, fixture] = corpus.find(([file]) => file === 'agent-card-every-security-scheme.json')!;
    const schemes = Object.values((fixture.value as AgentCard).securitySchemes ?? {});
    const kinds = new Set(schemes.flatMap((s) => Object.keys(s)));
    expect([...kinds].sort()).toEqual([
      'apiKeySecurityScheme',
      'httpAuthSecurityScheme',
      'mtlsSecurityScheme',
      'oauth2SecurityScheme',
      'openIdConnectSecurityScheme',
    ]);
    const flows = new Set(schemes.flatMap((s) => Object.keys(s.oauth2SecurityScheme?.flows ?? {})));
    expect(flows.size).toBe(5);
  });
});
