import type { AgentCard, AgentInterface, AgentSkill, SecurityScheme } from '../schema/index.js';
import { compact, isRecord } from './v03-util.js';

type Requirements = AgentCard['securityRequirements'];
type V03Security = Record<string, string[]>[];

const SCHEME_TO_V03: Readonly<Record<string, (s: Record<string, unknown>) => Record<string, unknown>>> = {
  apiKeySecurityScheme: ({ location, ...s }) => ({ type: 'apiKey', in: location, ...s }),
  httpAuthSecurityScheme: (s) => ({ type: 'http', ...s }),
  oauth2SecurityScheme: (s) => ({ type: 'oauth2', ...s }),
  openIdConnectSecurityScheme: (s) => ({ type: 'openIdConnect', ...s }),
  mtlsSecurityScheme: (s) => ({ type: 'mutualTLS', ...s }),
};
const SCHEME_TO_V1: Readonly<Record<string, string>> = {
  apiKey: 'apiKeySecurityScheme',
  http: 'httpAuthSecurityScheme',
  oauth2: 'oauth2SecurityScheme',
  openIdConnect: 'openIdConnectSecurityScheme',
  mutualTLS: 'mtlsSecurityScheme',
};

function schemeToV03(scheme: SecurityScheme): Record<string, unknown> {
  const [key, value] = Object.entries(scheme).find(([, v]) => v !== undefined) ?? [];
  const convert = key ? SCHEME_TO_V03[key] : undefined;
  return convert && isRecord(value) ? convert(value) : {};
}

function schemeToV1(scheme: unknown): SecurityScheme {
  if (!isRecord(scheme) || typeof scheme.type !== 'string') return scheme as SecurityScheme;
  const { type, in: location, ...rest } = scheme;
  const key = SCHEME_TO_V1[type];
  if (!key) return scheme as SecurityScheme;
  return { [key]: compact({ ...rest, ...(key === 'apiKeySecurityScheme' && { location }) }) } as SecurityScheme;
}

function securityToV03(requirements: Requirements): V03Security | undefined {
  return requirements?.map((r) => Object.fromEntries(Object.entries(r.schemes).map(([name, scopes]) => [name, scopes.list])));
}

function securityToV1(security: unknown): Requirements {
  if (!Array.isArray(security)) return undefined;
  return security.filter(isRecord).map((r) => ({
    schemes: Object.fromEntries(Object.entries(r).map(([name, scopes]) => [name, { list: Array.isArray(scopes) ? (scopes as string[]) : [] }])),
  }));
}

/**
 * A v1.0 agent card in the v0.3 shape: `protocolVersion: "0.3.0"`, `url` and
 * `preferredTransport` from the first JSON-RPC interface (else the first
 * one), every interface in `additionalInterfaces`,
 * `supportsAuthenticatedExtendedCard`, OpenAPI-style security schemes
 * (`type: "apiKey" | "http" | ...`) and `security` as scheme → scopes maps.
 */
export function agentCardToV03(card: AgentCard): Record<string, unknown> {
  const { supportedInterfaces, securitySchemes, securityRequirements, skills, capabilities, ...rest } = card;
  const main = supportedInterfaces.find((i) => i.protocolBinding === 'JSONRPC') ?? supportedInterfaces[0];
  return compact({
    ...rest,
    protocolVersion: '0.3.0',
    url: main?.url,
    preferredTransport: main?.protocolBinding,
    // `protocolVersion` and `tenant` are not v0.3 fields (v0.3 clients ignore them); they keep the card lossless.
    additionalInterfaces: supportedInterfaces.map((i) => compact({ url: i.url, transport: i.protocolBinding, protocolVersion: i.protocolVersion, tenant: i.tenant })),
    capabilities: compact({ streaming: capabilities.streaming, pushNotifications: capabilities.pushNotifications, extensions: capabilities.extensions }),
    supportsAuthenticatedExtendedCard: capabilities.extendedAgentCard,
    securitySchemes: securitySchemes && Object.fromEntries(Object.entries(securitySchemes).map(([n, s]) => [n, schemeToV03(s)])),
    security: securityToV03(securityRequirements),
    skills: skills.map(({ securityRequirements: req, ...skill }) => compact({ ...skill, security: securityToV03(req) })),
  });
}

/**
 * A v0.3 agent card as a v1.0 one: `url` + `preferredTransport` and
 * `additionalInterfaces` become `supportedInterfaces` (protocol version
 * `0.3`), security schemes and requirements take their v1.0 shapes. A card
 * that already has `supportedInterfaces` passes unchanged.
 */
export function agentCardToV1(card: unknown): AgentCard {
  if (!isRecord(card) || Array.isArray(card.supportedInterfaces)) return card as AgentCard;
  const { url, preferredTransport, additionalInterfaces, protocolVersion, supportsAuthenticatedExtendedCard, security, securitySchemes, skills, capabilities, ...rest } =
    card;
  const version = typeof protocolVersion === 'string' ? protocolVersion.split('.').slice(0, 2).join('.') : '0.3';
  const interfaces: AgentInterface[] = [];
  const add = (u: unknown, binding: unknown, extra: Record<string, unknown> = {}) => {
    if (typeof u !== 'string') return;
    const protocolBinding = typeof binding === 'string' && binding ? binding : 'JSONRPC';
    const found = interfaces.findIndex((i) => i.url === u && i.protocolBinding === protocolBinding);
    const entry = compact({ url: u, protocolBinding, protocolVersion: typeof extra.protocolVersion === 'string' ? extra.protocolVersion : version, tenant: extra.tenant as string | undefined });
    if (found < 0) interfaces.push(entry);
    else if (extra.protocolVersion !== undefined) interfaces[found] = entry;
  };
  add(url, preferredTransport);
  if (Array.isArray(additionalInterfaces)) for (const i of additionalInterfaces.filter(isRecord)) add(i.url, i.transport, i);
  const caps = isRecord(capabilities) ? capabilities : {};
  return compact({
    ...rest,
    supportedInterfaces: interfaces,
    capabilities: compact({
      streaming: caps.streaming,
      pushNotifications: caps.pushNotifications,
      extensions: caps.extensions,
      extendedAgentCard: supportsAuthenticatedExtendedCard,
    }),
    securitySchemes: isRecord(securitySchemes)
      ? Object.fromEntries(Object.entries(securitySchemes).map(([n, s]) => [n, schemeToV1(s)]))
      : undefined,
    securityRequirements: securityToV1(security),
    skills: Array.isArray(skills)
      ? skills.map((s) => (isRecord(s) ? (compact({ ...s, security: undefined, securityRequirements: securityToV1(s.security) }) as unknown as AgentSkill) : s))
      : [],
  }) as AgentCard;
}
