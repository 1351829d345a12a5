import type { AgentCard } from '../schema/index.js';
import { canonicalJson } from './canonical-json.js';

/**
 * When a field is kept in the signed payload (A2A v1.0 section 8.4.1):
 * - `required`: `[(google.api.field_behavior) = REQUIRED]`, kept whenever present, even at its default;
 * - `present`: explicit presence (the `optional` keyword, a singular message
 *   field, a `oneof` member), kept whenever present, even at its default;
 * - `default`: implicit presence (plain scalars, `repeated`, `map`), left out
 *   when it holds its default: `''`, `false`, `0`, `[]` or `{}`.
 */
type Keep = 'required' | 'present' | 'default';

/**
 * A field's rule: when it is kept, and the message its value (each element
 * of a repeated field, each value of a map with `map: true`) is canonicalized
 * as. Without `of` the value is kept as given (scalars, `repeated string`,
 * `map<string, string>`, `google.protobuf.Struct`).
 */
interface FieldRule {
  readonly keep: Keep;
  readonly of?: MessageName;
  readonly map?: true;
}

const required: FieldRule = { keep: 'required' };
const present: FieldRule = { keep: 'present' };
const plain: FieldRule = { keep: 'default' };
const requiredOf = (of: MessageName): FieldRule => ({ keep: 'required', of });
const presentOf = (of: MessageName): FieldRule => ({ keep: 'present', of });
const repeatedOf = (of: MessageName): FieldRule => ({ keep: 'default', of });
const mapOf = (of: MessageName): FieldRule => ({ keep: 'default', of, map: true });

type MessageName =
  | 'AgentCard' | 'AgentInterface' | 'AgentProvider' | 'AgentCapabilities' | 'AgentExtension' | 'AgentSkill'
  | 'AgentCardSignature' | 'SecurityRequirement' | 'StringList' | 'SecurityScheme' | 'APIKeySecurityScheme'
  | 'HTTPAuthSecurityScheme' | 'OAuth2SecurityScheme' | 'OpenIdConnectSecurityScheme' | 'MutualTlsSecurityScheme'
  | 'OAuthFlows' | 'AuthorizationCodeOAuthFlow' | 'ClientCredentialsOAuthFlow' | 'ImplicitOAuthFlow'
  | 'PasswordOAuthFlow' | 'DeviceCodeOAuthFlow';

/**
 * The field-presence rules of every message reachable from `AgentCard`, by
 * ProtoJSON (camelCase) name, transcribed by hand from the A2A v1.0 proto
 * (`lf.a2a.v1`, a2a.proto: the `AgentCard` message and the messages it
 * nests). Keep it in step with that file when the spec changes.
 */
const MESSAGES: Readonly<Record<MessageName, Readonly<Record<string, FieldRule>>>> = {
  AgentCard: {
    name: required,
    description: required,
    supportedInterfaces: requiredOf('AgentInterface'),
    provider: presentOf('AgentProvider'),
    version: required,
    documentationUrl: present,
    capabilities: requiredOf('AgentCapabilities'),
    securitySchemes: mapOf('SecurityScheme'),
    securityRequirements: repeatedOf('SecurityRequirement'),
    defaultInputModes: required,
    defaultOutputModes: required,
    skills: requiredOf('AgentSkill'),
    signatures: repeatedOf('AgentCardSignature'),
    iconUrl: present,
  },
  AgentInterface: { url: required, protocolBinding: required, tenant: plain, protocolVersion: required },
  AgentProvider: { url: required, organization: required },
  AgentCapabilities: { streaming: present, pushNotifications: present, extensions: repeatedOf('AgentExtension'), extendedAgentCard: present },
  AgentExtension: { uri: plain, description: plain, required: plain, params: present },
  AgentSkill: {
    id: required,
    name: required,
    description: required,
    tags: required,
    examples: plain,
    inputModes: plain,
    outputModes: plain,
    securityRequirements: repeatedOf('SecurityRequirement'),
  },
  AgentCardSignature: { protected: required, signature: required, header: present },
  SecurityRequirement: { schemes: mapOf('StringList') },
  StringList: { list: plain },
  SecurityScheme: {
    apiKeySecurityScheme: presentOf('APIKeySecurityScheme'),
    httpAuthSecurityScheme: presentOf('HTTPAuthSecurityScheme'),
    oauth2SecurityScheme: presentOf('OAuth2SecurityScheme'),
    openIdConnectSecurityScheme: presentOf('OpenIdConnectSecurityScheme'),
    mtlsSecurityScheme: presentOf('MutualTlsSecurityScheme'),
  },
  APIKeySecurityScheme: { description: plain, location: required, name: required },
  HTTPAuthSecurityScheme: { description: plain, scheme: required, bearerFormat: plain },
  OAuth2SecurityScheme: { description: plain, flows: requiredOf('OAuthFlows'), oauth2MetadataUrl: plain },
  OpenIdConnectSecurityScheme: { description: plain, openIdConnectUrl: required },
  MutualTlsSecurityScheme: { description: plain },
  OAuthFlows: {
    authorizationCode: presentOf('AuthorizationCodeOAuthFlow'),
    clientCredentials: presentOf('ClientCredentialsOAuthFlow'),
    implicit: presentOf('ImplicitOAuthFlow'),
    password: presentOf('PasswordOAuthFlow'),
    deviceCode: presentOf('DeviceCodeOAuthFlow'),
  },
  AuthorizationCodeOAuthFlow: { authorizationUrl: required, tokenUrl: required, refreshUrl: plain, scopes: required, pkceRequired: plain },
  ClientCredentialsOAuthFlow: { tokenUrl: required, refreshUrl: plain, scopes: required },
  ImplicitOAuthFlow: { authorizationUrl: plain, refreshUrl: plain, scopes: plain },
  PasswordOAuthFlow: { tokenUrl: plain, refreshUrl: plain, scopes: plain },
  DeviceCodeOAuthFlow: { deviceAuthorizationUrl: required, tokenUrl: required, refreshUrl: plain, scopes: required },
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The proto3 default of an implicit-presence field: `''`, `false`, `0`, an empty list or an empty map. */
function isDefault(value: unknown): boolean {
  if (value === '' || value === false || value === 0) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

function pruneValue(value: unknown, rule: FieldRule): unknown {
  const of = rule.of;
  if (of === undefined) return value;
  if (Array.isArray(value)) return value.map((item) => pruneMessage(item, of));
  if (rule.map && isObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, pruneMessage(item, of)]));
  }
  return pruneMessage(value, of);
}

/** A message with its fields kept or left out by {@link MESSAGES}; fields the proto does not declare are left out. */
function pruneMessage(value: unknown, name: MessageName): unknown {
  if (!isObject(value)) return value;
  const rules = MESSAGES[name];
  const out: Record<string, unknown> = {};
  for (const [field, fieldValue] of Object.entries(value)) {
    const rule = Object.hasOwn(rules, field) ? rules[field] : undefined;
    if (rule === undefined || fieldValue === undefined || fieldValue === null) continue;
    if (rule.keep === 'default' && isDefault(fieldValue)) continue;
    out[field] = pruneValue(fieldValue, rule);
  }
  return out;
}

/**
 * The payload an agent card signature covers (A2A v1.0 section 8.4.1): the
 * card without `signatures`, with protobuf field-presence rules applied to
 * the card and every message it nests, serialized with RFC 8785 JCS.
 *
 * - REQUIRED fields are kept as given, even when empty (`description: ""`,
 *   `skills: []`); a missing one stays missing.
 * - Fields with explicit presence (`optional`, singular messages such as
 *   `provider`, `oneof` members, `google.protobuf.Struct` values such as
 *   `params`) are kept whenever set, even to `false` or `{}`.
 * - Other fields are left out when they hold their default: `''`, `false`,
 *   `0`, `[]` or `{}`. `null` counts as unset everywhere.
 * - Fields the v1.0 `AgentCard` message does not declare (v0.3 fields such
 *   as `url`, vendor extras) are left out, as a protobuf round trip drops
 *   them: they are not covered by a signature, so do not trust them on a
 *   verified card. Struct contents (`params`, `header`) are kept verbatim.
 *
 * Never modifies `card`. Throws a `TypeError` only for values JSON cannot
 * carry (see {@link canonicalJson}).
 */
export function canonicalAgentCard(card: AgentCard | Omit<AgentCard, 'signatures'>): string {
  const pruned = pruneMessage(card, 'AgentCard');
  if (isObject(pruned)) delete pruned['signatures'];
  return canonicalJson(pruned);
}
