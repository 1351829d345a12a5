// Interop with the official A2A JS SDK (@a2a-js/sdk, a devDependency), whose
// signing goes through `jose` and its own canonicalization.
import { canonicalizeAgentCard, generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk';
import type { AgentCard as SdkCard } from '@a2a-js/sdk';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentCard } from '../schema/index.js';
import { canonicalAgentCard } from './card-fields.js';
import { keyPairFor, realisticCard } from './card-signing-test-kit.js';
import type { AgentCardSigningAlg } from './jws-algorithms.js';
import { signAgentCard } from './sign-card.js';
import { verifyAgentCard } from './verify-card.js';

const toSdk = (card: AgentCard) => card as unknown as SdkCard;
const fromSdk = (card: unknown) => card as AgentCard;

/**
 * {@link realisticCard} without its scope-less security requirement
 * (`{ apiKey: { list: [] } }`), which the SDK drops from the payload (see
 * the last test); everything else in it canonicalizes the same way.
 */
function sdkComparableCard(): AgentCard {
  const card = realisticCard();
  return { ...card, securityRequirements: card.securityRequirements!.filter((r) => r.schemes['apiKey'] === undefined) };
}

describe('interop with @a2a-js/sdk', () => {
  // The SDK's verifier logs every failed signature with console.debug.
  beforeEach(() => void vi.spyOn(console, 'debug').mockImplementation(() => {}));

  it('gives the same canonical payload for a realistic card', () => {
    const card = sdkComparableCard();
    expect(canonicalAgentCard(card)).toBe(canonicalizeAgentCard(toSdk(card)));
  });

  it.each<AgentCardSigningAlg>(['ES256', 'RS256', 'PS256', 'EdDSA'])('%s: a card we sign verifies with the SDK, and one it signs with ours', async (alg) => {
    const { privateKey, publicKey } = await keyPairFor(alg);
    const sdkVerify = verifyAgentCardSignature(async (kid) => {
      if (kid !== 'k1') throw new Error(`unknown kid ${kid}`);
      return publicKey;
    });

    const ours = await signAgentCard(sdkComparableCard(), { privateKey, alg, kid: 'k1', jku: 'https://agent.example.com/jwks.json' });
    await expect(sdkVerify(toSdk(ours))).resolves.toBeUndefined();

    const sdkSign = generateAgentCardSignature(privateKey, { alg, kid: 'k1', typ: 'JOSE' });
    const theirs = fromSdk(await sdkSign(toSdk(sdkComparableCard())));
    expect(await verifyAgentCard(theirs, { keys: ({ kid }) => (kid === 'k1' ? publicKey : undefined) })).toMatchObject({ verified: true, kid: 'k1' });

    // And both reject the other's signature once the card changes.
    const tampered = { ...ours, description: 'changed' };
    await expect(sdkVerify(toSdk(tampered))).rejects.toThrow(/No valid signatures/);
    expect((await verifyAgentCard({ ...theirs, description: 'changed' }, { keys: () => publicKey })).verified).toBe(false);
  });

  // Pinned so an SDK upgrade that changes this shows up here. The SDK 1.3.0
  // strips every empty string, list and object after its protobuf round
  // trip, REQUIRED fields and map entries included, so it departs from
  // section 8.4.1: cards with these shapes do not verify across the two.
  it('documents where the SDK payload departs from section 8.4.1', () => {
    const specExample = { name: 'Example Agent', description: '', capabilities: { streaming: false, pushNotifications: false, extensions: [] }, skills: [] };
    expect(canonicalizeAgentCard(specExample as unknown as SdkCard)).toBe('{"capabilities":{"pushNotifications":false,"streaming":false},"name":"Example Agent"}');
    const card = { ...sdkComparableCard(), securityRequirements: [{ schemes: { apiKey: { list: [] } } }] };
    expect(canonicalAgentCard(card)).toContain('"securityRequirements":[{"schemes":{"apiKey":{}}}]');
    expect(canonicalizeAgentCard(toSdk(card))).not.toContain('securityRequirements');
  });
});
