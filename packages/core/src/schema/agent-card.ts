import * as z from 'zod';
import { oneof, StructSchema } from './common.js';

/** A way to reach the agent: its URL, binding (`JSONRPC`, `HTTP+JSON`, `GRPC` or a URI) and version. */
export const AgentInterfaceSchema = z.object({
  url: z.string().min(1),
  protocolBinding: z.string().min(1),
  tenant: z.string().optional(),
  protocolVersion: z.string().min(1),
});
/** An agent interface. */
export type AgentInterface = z.infer<typeof AgentInterfaceSchema>;

/** The organisation behind an agent. */
export const AgentProviderSchema = z.object({ url: z.string(), organization: z.string() });

/** A protocol extension the agent supports. */
export const AgentExtensionSchema = z.object({
  uri: z.string(),
  description: z.string().optional(),
  required: z.boolean().optional(),
  params: StructSchema.optional(),
});
/** An agent extension declaration. */
export type AgentExtension = z.infer<typeof AgentExtensionSchema>;

/** Optional features the agent supports. */
export const AgentCapabilitiesSchema = z.object({
  streaming: z.boolean().optional(),
  pushNotifications: z.boolean().optional(),
  extensions: z.array(AgentExtensionSchema).optional(),
  extendedAgentCard: z.boolean().optional(),
});
/** Agent capabilities. */
export type AgentCapabilities = z.infer<typeof AgentCapabilitiesSchema>;

/** A security requirement: scheme name to the scopes it needs. */
export const SecurityRequirementSchema = z.object({
  schemes: z.record(z.string(), z.object({ list: z.array(z.string()) })),
});

const scopes = z.record(z.string(), z.string());
/** The OAuth 2.0 flow of an oauth2 scheme: exactly one of the five (the proto `oneof flow`). */
const OAuthFlowsSchema = oneof(
  'OAuth flows',
  ['authorizationCode', 'clientCredentials', 'implicit', 'password', 'deviceCode'],
  z.object({
    authorizationCode: z
      .object({ authorizationUrl: z.string(), tokenUrl: z.string(), refreshUrl: z.string().optional(), scopes, pkceRequired: z.boolean().optional() })
      .optional(),
    clientCredentials: z.object({ tokenUrl: z.string(), refreshUrl: z.string().optional(), scopes }).optional(),
    implicit: z.object({ authorizationUrl: z.string().optional(), refreshUrl: z.string().optional(), scopes: scopes.optional() }).optional(),
    password: z.object({ tokenUrl: z.string().optional(), refreshUrl: z.string().optional(), scopes: scopes.optional() }).optional(),
    deviceCode: z
      .object({ deviceAuthorizationUrl: z.string(), tokenUrl: z.string(), refreshUrl: z.string().optional(), scopes })
      .optional(),
  }),
);

/**
 * How a client authenticates: exactly one of the five scheme kinds of the
 * spec (the proto `oneof scheme`); none or several are rejected.
 */
export const SecuritySchemeSchema = oneof(
  'a security scheme',
  ['apiKeySecurityScheme', 'httpAuthSecurityScheme', 'oauth2SecurityScheme', 'openIdConnectSecurityScheme', 'mtlsSecurityScheme'],
  z.object({
    apiKeySecurityScheme: z.object({ description: z.string().optional(), location: z.string(), name: z.string() }).optional(),
    httpAuthSecurityScheme: z
      .object({ description: z.string().optional(), scheme: z.string(), bearerFormat: z.string().optional() })
      .optional(),
    oauth2SecurityScheme: z
      .object({ description: z.string().optional(), flows: OAuthFlowsSchema, oauth2MetadataUrl: z.string().optional() })
      .optional(),
    openIdConnectSecurityScheme: z.object({ description: z.string().optional(), openIdConnectUrl: z.string() }).optional(),
    mtlsSecurityScheme: z.object({ description: z.string().optional() }).optional(),
  }),
);
/** A security scheme. */
export type SecurityScheme = z.infer<typeof SecuritySchemeSchema>;

/** A capability of the agent, for discovery. */
export const AgentSkillSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  examples: z.array(z.string()).optional(),
  inputModes: z.array(z.string()).optional(),
  outputModes: z.array(z.string()).optional(),
  securityRequirements: z.array(SecurityRequirementSchema).optional(),
});
/** An agent skill. */
export type AgentSkill = z.infer<typeof AgentSkillSchema>;

/** A JWS signature over the card. */
export const AgentCardSignatureSchema = z.object({
  protected: z.string(),
  signature: z.string(),
  header: StructSchema.optional(),
});

/** The agent's self-description, served at `/.well-known/agent-card.json`. */
export const AgentCardSchema = z.object({
  name: z.string().min(1),
  description: z.string(),
  supportedInterfaces: z.array(AgentInterfaceSchema).min(1, 'an agent card lists at least one interface'),
  provider: AgentProviderSchema.optional(),
  version: z.string(),
  documentationUrl: z.string().optional(),
  capabilities: AgentCapabilitiesSchema,
  securitySchemes: z.record(z.string(), SecuritySchemeSchema).optional(),
  securityRequirements: z.array(SecurityRequirementSchema).optional(),
  defaultInputModes: z.array(z.string()),
  defaultOutputModes: z.array(z.string()),
  skills: z.array(AgentSkillSchema),
  signatures: z.array(AgentCardSignatureSchema).optional(),
  iconUrl: z.string().optional(),
});
/** An agent card (v1.0 wire shape). */
export type AgentCard = z.infer<typeof AgentCardSchema>;
