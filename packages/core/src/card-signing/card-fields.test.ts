import { describe, expect, it } from 'vitest';
import type { AgentCard } from '../schema/index.js';
import { canonicalAgentCard } from './card-fields.js';
import { realisticCard } from './card-signing-test-kit.js';

const asCard = (value: unknown) => value as AgentCard;

describe('canonicalAgentCard (A2A v1.0 section 8.4.1)', () => {
  it('gives the spec example result', () => {
    const fragment = {
      name: 'Example Agent',
      description: '',
      capabilities: { streaming: false, pushNotifications: false, extensions: [] },
      skills: [],
    };
    expect(canonicalAgentCard(asCard(fragment))).toBe(
      '{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}',
    );
  });

  it('leaves out signatures and does not modify the card', () => {
    const card = { ...realisticCard(), signatures: [{ protected: 'p', signature: 's' }] };
    const before = structuredClone(card);
    expect(canonicalAgentCard(card)).toBe(canonicalAgentCard(realisticCard()));
    expect(card).toEqual(before);
  });

  it('keeps REQUIRED fields at their default and leaves out implicit-presence defaults, at every level', () => {
    const card = {
      name: 'A',
      description: '',
      version: '',
      supportedInterfaces: [{ url: 'u', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
      capabilities: { extensions: [{ uri: '', description: '', required: false }] },
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [{ id: 's', name: '', description: '', tags: [], examples: [], inputModes: [], securityRequirements: [] }],
      securitySchemes: {},
      securityRequirements: [],
    };
    expect(JSON.parse(canonicalAgentCard(asCard(card)))).toEqual({
      name: 'A',
      description: '',
      version: '',
      supportedInterfaces: [{ url: 'u', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { extensions: [{}] },
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [{ id: 's', name: '', description: '', tags: [] }],
    });
  });

  it('keeps optional and message fields that are set, even to a default, and treats null as unset', () => {
    const card = {
      ...realisticCard(),
      documentationUrl: '',
      iconUrl: null,
      capabilities: { streaming: false, extendedAgentCard: false, pushNotifications: null, extensions: [{ uri: 'x', params: {} }] },
    };
    const canonical = JSON.parse(canonicalAgentCard(asCard(card)));
    expect(canonical.documentationUrl).toBe('');
    expect(canonical).not.toHaveProperty('iconUrl');
    expect(canonical.capabilities).toEqual({ streaming: false, extendedAgentCard: false, extensions: [{ uri: 'x', params: {} }] });
  });

  it('applies the rules inside security schemes, oneofs and maps', () => {
    const card = {
      ...realisticCard(),
      securitySchemes: {
        mtls: { mtlsSecurityScheme: {} },
        code: { oauth2SecurityScheme: { description: '', flows: { authorizationCode: { authorizationUrl: 'a', tokenUrl: 't', refreshUrl: '', scopes: {}, pkceRequired: false } } } },
        implicit: { oauth2SecurityScheme: { flows: { implicit: { authorizationUrl: '', scopes: {} } }, oauth2MetadataUrl: '' } },
        http: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: '' } },
      },
      securityRequirements: [{ schemes: { mtls: { list: [] }, code: { list: ['', 'read'] } } }, { schemes: {} }],
    };
    const canonical = JSON.parse(canonicalAgentCard(asCard(card)));
    expect(canonical.securitySchemes).toEqual({
      mtls: { mtlsSecurityScheme: {} },
      code: { oauth2SecurityScheme: { flows: { authorizationCode: { authorizationUrl: 'a', tokenUrl: 't', scopes: {} } } } },
      implicit: { oauth2SecurityScheme: { flows: { implicit: {} } } },
      http: { httpAuthSecurityScheme: { scheme: 'Bearer' } },
    });
    expect(canonical.securityRequirements).toEqual([{ schemes: { mtls: {}, code: { list: ['', 'read'] } } }, {}]);
  });

  it('keeps Struct contents verbatim and leaves out fields the v1.0 proto does not declare', () => {
    const card = {
      ...realisticCard(),
      url: 'https://agent.example.com/a2a/jsonrpc',
      preferredTransport: 'JSONRPC',
      capabilities: { extensions: [{ uri: 'x', params: { empty: '', list: [], zero: 0, nested: { off: false } }, vendor: 1 }] },
    };
    const canonical = JSON.parse(canonicalAgentCard(asCard(card)));
    expect(canonical).not.toHaveProperty('url');
    expect(canonical).not.toHaveProperty('preferredTransport');
    expect(canonical.capabilities.extensions).toEqual([{ uri: 'x', params: { empty: '', list: [], zero: 0, nested: { off: false } } }]);
  });

  it('is whitespace-free JCS with sorted keys', () => {
    const text = canonicalAgentCard(realisticCard());
    expect(text).toMatch(/^\{"capabilities":\{"extendedAgentCard":true,"extensions":\[\{"description":"Reports timings","params":\{"max":1.5,"unit":"ms"\}/);
    expect(text).not.toMatch(/\n|": /);
  });
});
