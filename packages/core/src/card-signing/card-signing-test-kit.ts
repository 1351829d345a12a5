import type { AgentCard } from '../schema/index.js';
import type { AgentCardSigningAlg } from './jws-algorithms.js';

/** A realistic v1.0 card (every required field non-empty), built inline so core's tests import no agent package. */
export function realisticCard(): AgentCard {
  return {
    name: 'Taskwire Reference Agent',
    description: 'Echoes, counts and asks for input; the agent the conformance suite runs against.',
    supportedInterfaces: [
      { url: 'https://agent.example.com/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'https://agent.example.com/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 'acme' },
      { url: 'agent.example.com:443', protocolBinding: 'GRPC', protocolVersion: '1.0' },
    ],
    provider: { organization: 'Taskwire', url: 'https://taskwire.dev' },
    version: '0.1.0',
    documentationUrl: 'https://taskwire.dev/docs',
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: true,
      extensions: [{ uri: 'https://taskwire.dev/ext/timing/v1', description: 'Reports timings', required: true, params: { unit: 'ms', max: 1.5 } }],
    },
    securitySchemes: {
      apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key', description: 'Team key' } },
      oauth: {
        oauth2SecurityScheme: {
          flows: { authorizationCode: { authorizationUrl: 'https://auth.example.com/a', tokenUrl: 'https://auth.example.com/t', scopes: { read: 'Read tasks' }, pkceRequired: true } },
        },
      },
    },
    securityRequirements: [{ schemes: { apiKey: { list: [] } } }, { schemes: { oauth: { list: ['read'] } } }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain'],
    skills: [
      { id: 'echo', name: 'Echo', description: 'Echoes the message – with ünïcode', tags: ['test', 'echo'], examples: ['hello'] },
      { id: 'count', name: 'Count', description: 'Streams a count', tags: ['stream'], outputModes: ['application/json'] },
    ],
    iconUrl: 'https://taskwire.dev/icon.png',
  };
}

const GENERATE: Record<AgentCardSigningAlg, RsaHashedKeyGenParams | EcKeyGenParams | Algorithm> = {
  ES256: { name: 'ECDSA', namedCurve: 'P-256' },
  ES384: { name: 'ECDSA', namedCurve: 'P-384' },
  ES512: { name: 'ECDSA', namedCurve: 'P-521' },
  RS256: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
  RS384: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-384', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
  RS512: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-512', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
  PS256: { name: 'RSA-PSS', hash: 'SHA-256', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
  PS384: { name: 'RSA-PSS', hash: 'SHA-384', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
  PS512: { name: 'RSA-PSS', hash: 'SHA-512', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
  EdDSA: { name: 'Ed25519' },
  Ed25519: { name: 'Ed25519' },
};

/** A fresh extractable key pair for `alg`. */
export function keyPairFor(alg: AgentCardSigningAlg): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey(GENERATE[alg], true, ['sign', 'verify']) as Promise<CryptoKeyPair>;
}
