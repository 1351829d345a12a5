import type { AgentCard, AgentCardJwsHeader } from '@taskwire/core';
import { verifyAgentCard } from '@taskwire/core';
import { failureText } from './card-fetch.js';
import type { CardProblem } from './card-problems.js';

const RULE = '§8.4.3 Signature verification';

/** How long the inspector waits for a `jku` key set. */
const JKU_TIMEOUT_MS = 5_000;

/** Fetches the JWK set at `jku` and returns the key named `kid`; throws saying why it could not. */
async function keyFromJku(jku: string, kid: string, fetchImpl: typeof fetch): Promise<JsonWebKey | undefined> {
  let response: Response;
  try {
    response = await fetchImpl(jku, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(JKU_TIMEOUT_MS) });
  } catch (error) {
    throw new Error(`the jku ${jku} does not load (${failureText(error)})`);
  }
  if (!response.ok) throw new Error(`the jku ${jku} answered HTTP ${response.status}`);
  const set = (await response.json().catch(() => undefined)) as { keys?: unknown } | undefined;
  if (!set || !Array.isArray(set.keys)) throw new Error(`the jku ${jku} is not a JWK set ({"keys": [...]})`);
  return (set.keys as JsonWebKey[]).find((key) => (key as { kid?: unknown }).kid === kid);
}

/**
 * Verifies the signatures of `raw` (the card as fetched) with the keys
 * their `jku` names (§8.4.3): one `info` problem when one verifies, one
 * `error` per signature that does not (with the reason: the jku does not
 * load, no key with that `kid`, the signature does not match the card...).
 * A signature without `jku` cannot be checked without the signer's keys: an
 * `info` says so. A card without signatures gives no problem; signatures
 * that cannot be read are one `error`. Never throws.
 */
export async function signatureProblems(raw: unknown, fetchImpl: typeof fetch = fetch): Promise<CardProblem[]> {
  const signatures = typeof raw === 'object' && raw !== null ? (raw as { signatures?: unknown }).signatures : undefined;
  if (!Array.isArray(signatures) || signatures.length === 0) return [];
  const noJku = new Set<string>();
  const keys = async (header: AgentCardJwsHeader) => {
    if (header.jku !== undefined) return keyFromJku(header.jku, header.kid, fetchImpl);
    noJku.add(`(kid ${JSON.stringify(header.kid)}): no key`);
    return undefined;
  };
  let result: Awaited<ReturnType<typeof verifyAgentCard>>;
  try {
    result = await verifyAgentCard(raw as AgentCard, { keys });
  } catch (error) {
    return [{ path: 'signatures', rule: RULE, message: `cannot be checked: ${(error as Error)?.message ?? String(error)} (expected JWS objects {protected, signature})`, severity: 'error' }];
  }
  const problems: CardProblem[] = result.reasons.map((reason) => {
    const at = /^signatures\[(\d+)\]/.exec(reason)?.[1];
    const index = at === undefined ? undefined : Number(at);
    const without = [...noJku].some((tail) => reason.endsWith(tail));
    return {
      path: index === undefined ? 'signatures' : `signatures[${index}]`,
      rule: RULE,
      message: without ? `${reason}: it names no jku, so only the signer's published keys can verify it` : `does not verify: ${reason}`,
      severity: without ? 'info' : 'error',
    };
  });
  if (result.verified) {
    problems.push({ path: `signatures[${result.index}]`, rule: RULE, message: `verifies (alg ${result.alg}, kid ${result.kid}, key from its jku)`, severity: 'info' });
  }
  return problems;
}
