import type * as core from '@taskwire/core';
import type * as pb from '../gen/lf/a2a/v1/a2a.js';
import { optionalList, optionalString, optionalTrue, put, toMap } from './scalars.js';

// The agent card (GetExtendedAgentCard's result) and its parts.

type SecurityRequirement = core.AgentCard['skills'][number]['securityRequirements'] extends (infer R)[] | undefined ? R : never;
type OAuthFlows = NonNullable<core.SecurityScheme['oauth2SecurityScheme']>['flows'];
type Scopes = Record<string, string>;

/** Each OAuth flow's string fields, which of them core requires, and whether it has `pkceRequired`. */
const FLOWS = {
  authorizationCode: { strings: ['authorizationUrl', 'tokenUrl', 'refreshUrl'], required: ['authorizationUrl', 'tokenUrl', 'scopes'], pkce: true },
  clientCredentials: { strings: ['tokenUrl', 'refreshUrl'], required: ['tokenUrl', 'scopes'], pkce: false },
  implicit: { strings: ['authorizationUrl', 'refreshUrl'], required: [], pkce: false },
  password: { strings: ['tokenUrl', 'refreshUrl'], required: [], pkce: false },
  deviceCode: { strings: ['deviceAuthorizationUrl', 'tokenUrl', 'refreshUrl'], required: ['deviceAuthorizationUrl', 'tokenUrl', 'scopes'], pkce: false },
} as const;
type FlowName = keyof typeof FLOWS;

/** Each security scheme kind's string fields and which of them core requires. */
const SCHEMES = {
  apiKeySecurityScheme: { strings: ['description', 'location', 'name'], required: ['location', 'name'] },
  httpAuthSecurityScheme: { strings: ['description', 'scheme', 'bearerFormat'], required: ['scheme'] },
  oauth2SecurityScheme: { strings: ['description', 'oauth2MetadataUrl'], required: [] },
  openIdConnectSecurityScheme: { strings: ['description', 'openIdConnectUrl'], required: ['openIdConnectUrl'] },
  mtlsSecurityScheme: { strings: ['description'], required: [] },
} as const;
type SchemeName = keyof typeof SCHEMES;

type Fields = Record<string, unknown>;

/** Proto fields from core ones: every listed string is set ("" when core leaves it out). */
function stringsTo(from: Fields, strings: readonly string[]): Fields {
  const out: Fields = {};
  for (const key of strings) out[key] = (from[key] as string | undefined) ?? '';
  return out;
}

/** Core fields from proto ones: required strings always, optional ones only when not "". */
function stringsFrom(from: Fields, strings: readonly string[], required: readonly string[]): Fields {
  const out: Fields = {};
  for (const key of strings) {
    if (required.includes(key)) out[key] = from[key];
    else put(out, key, optionalString(from[key] as string));
  }
  return out;
}

function toRequirement(requirement: SecurityRequirement): pb.SecurityRequirement {
  return { schemes: toMap(requirement.schemes, (scopes) => ({ list: [...scopes.list] })) };
}

function fromRequirement(requirement: pb.SecurityRequirement): SecurityRequirement {
  return { schemes: toMap(requirement.schemes, (scopes) => ({ list: [...scopes.list] })) };
}

function toFlows(flows: OAuthFlows): pb.OAuthFlows {
  const all = flows as Record<string, Fields | undefined>;
  const name = (Object.keys(FLOWS) as FlowName[]).find((k) => all[k] !== undefined);
  if (!name) return { flow: undefined };
  const spec = FLOWS[name];
  const flow = all[name]!;
  const value = stringsTo(flow, spec.strings);
  value.scopes = { ...((flow.scopes as Scopes | undefined) ?? {}) };
  if (spec.pkce) value.pkceRequired = flow.pkceRequired ?? false;
  return { flow: { $case: name, [name]: value } as unknown as pb.OAuthFlows['flow'] };
}

function fromFlows(flows: pb.OAuthFlows | undefined): OAuthFlows {
  const flow = flows?.flow;
  if (!flow) return {} as OAuthFlows;
  const spec = FLOWS[flow.$case];
  const proto = (flow as unknown as Record<string, Fields>)[flow.$case]!;
  const value = stringsFrom(proto, spec.strings, spec.required);
  const scopes = proto.scopes as Scopes;
  if ((spec.required as readonly string[]).includes('scopes') || Object.keys(scopes).length > 0) value.scopes = { ...scopes };
  if (spec.pkce) put(value, 'pkceRequired', optionalTrue(proto.pkceRequired as boolean));
  return { [flow.$case]: value } as OAuthFlows;
}

/** A proto SecurityScheme from a core one (the oneof follows the core object's one key). */
export function toSecurityScheme(scheme: core.SecurityScheme): pb.SecurityScheme {
  const all = scheme as Record<string, Fields | undefined>;
  const name = (Object.keys(SCHEMES) as SchemeName[]).find((k) => all[k] !== undefined);
  if (!name) return { scheme: undefined };
  const value = stringsTo(all[name]!, SCHEMES[name].strings);
  if (name === 'oauth2SecurityScheme') value.flows = toFlows(all[name]!.flows as OAuthFlows);
  return { scheme: { $case: name, [name]: value } as unknown as pb.SecurityScheme['scheme'] };
}

/** A core SecurityScheme from a proto one. */
export function fromSecurityScheme(scheme: pb.SecurityScheme): core.SecurityScheme {
  const chosen = scheme.scheme;
  if (!chosen) return {} as core.SecurityScheme;
  const proto = (chosen as unknown as Record<string, Fields>)[chosen.$case]!;
  const value = stringsFrom(proto, SCHEMES[chosen.$case].strings, SCHEMES[chosen.$case].required);
  if (chosen.$case === 'oauth2SecurityScheme') value.flows = fromFlows(chosen.oauth2SecurityScheme.flows);
  return { [chosen.$case]: value } as core.SecurityScheme;
}

function toSkill(skill: core.AgentSkill): pb.AgentSkill {
  return {
    id: skill.id,
    name: skill.name,
    description: skill.description,
    tags: [...skill.tags],
    examples: skill.examples ?? [],
    inputModes: skill.inputModes ?? [],
    outputModes: skill.outputModes ?? [],
    securityRequirements: (skill.securityRequirements ?? []).map(toRequirement),
  };
}

function fromSkill(skill: pb.AgentSkill): core.AgentSkill {
  const out: core.AgentSkill = { id: skill.id, name: skill.name, description: skill.description, tags: [...skill.tags] };
  put(out, 'examples', optionalList(skill.examples));
  put(out, 'inputModes', optionalList(skill.inputModes));
  put(out, 'outputModes', optionalList(skill.outputModes));
  if (skill.securityRequirements.length > 0) out.securityRequirements = skill.securityRequirements.map(fromRequirement);
  return out;
}

function toExtension(extension: core.AgentExtension): pb.AgentExtension {
  return { uri: extension.uri, description: extension.description ?? '', required: extension.required ?? false, params: extension.params };
}

function fromExtension(extension: pb.AgentExtension): core.AgentExtension {
  const out: core.AgentExtension = { uri: extension.uri };
  put(out, 'description', optionalString(extension.description));
  put(out, 'required', optionalTrue(extension.required));
  put(out, 'params', extension.params);
  return out;
}

/** A proto AgentCard from a core card. */
export function toAgentCard(card: core.AgentCard): pb.AgentCard {
  const capabilities = card.capabilities;
  return {
    name: card.name,
    description: card.description,
    supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, tenant: i.tenant ?? '' })),
    provider: card.provider && { ...card.provider },
    version: card.version,
    documentationUrl: card.documentationUrl,
    capabilities: {
      streaming: capabilities.streaming,
      pushNotifications: capabilities.pushNotifications,
      extensions: (capabilities.extensions ?? []).map(toExtension),
      extendedAgentCard: capabilities.extendedAgentCard,
    },
    securitySchemes: toMap(card.securitySchemes, toSecurityScheme),
    securityRequirements: (card.securityRequirements ?? []).map(toRequirement),
    defaultInputModes: [...card.defaultInputModes],
    defaultOutputModes: [...card.defaultOutputModes],
    skills: card.skills.map(toSkill),
    signatures: (card.signatures ?? []).map((s) => ({ protected: s.protected, signature: s.signature, header: s.header })),
    iconUrl: card.iconUrl,
  };
}

/** A core card from a proto AgentCard. */
export function fromAgentCard(card: pb.AgentCard): core.AgentCard {
  const capabilities: core.AgentCapabilities = {};
  const c = card.capabilities;
  put(capabilities, 'streaming', c?.streaming);
  put(capabilities, 'pushNotifications', c?.pushNotifications);
  if (c && c.extensions.length > 0) capabilities.extensions = c.extensions.map(fromExtension);
  put(capabilities, 'extendedAgentCard', c?.extendedAgentCard);
  const out: core.AgentCard = {
    name: card.name,
    description: card.description,
    supportedInterfaces: card.supportedInterfaces.map((i) => {
      const entry: core.AgentInterface = { url: i.url, protocolBinding: i.protocolBinding, protocolVersion: i.protocolVersion };
      put(entry, 'tenant', optionalString(i.tenant));
      return entry;
    }),
    version: card.version,
    capabilities,
    defaultInputModes: [...card.defaultInputModes],
    defaultOutputModes: [...card.defaultOutputModes],
    skills: card.skills.map(fromSkill),
  };
  if (card.provider) out.provider = { url: card.provider.url, organization: card.provider.organization };
  put(out, 'documentationUrl', card.documentationUrl);
  if (Object.keys(card.securitySchemes).length > 0) out.securitySchemes = toMap(card.securitySchemes, fromSecurityScheme);
  if (card.securityRequirements.length > 0) out.securityRequirements = card.securityRequirements.map(fromRequirement);
  if (card.signatures.length > 0) {
    out.signatures = card.signatures.map((s) => {
      const signature: NonNullable<core.AgentCard['signatures']>[number] = { protected: s.protected, signature: s.signature };
      put(signature, 'header', s.header);
      return signature;
    });
  }
  put(out, 'iconUrl', card.iconUrl);
  return out;
}
