import type { AgentCard, AgentInterface } from '@taskwire/core';
import { agentCardToV03, negotiateVersion } from '@taskwire/core';

/** The v0.3 fields that say where the agent is; they must agree, so a card that sets one keeps all three as they are. */
const LOCATION_FIELDS = ['url', 'preferredTransport', 'additionalInterfaces'] as const;
/** Every v0.3 field added to the served card. */
const V03_FIELDS = [...LOCATION_FIELDS, 'protocolVersion', 'supportsAuthenticatedExtendedCard'] as const;

function speaksV03(iface: AgentInterface): boolean {
  try {
    return negotiateVersion(iface.protocolVersion) === '0.3';
  } catch {
    return false;
  }
}

/** The path of an interface URL without trailing `/`, or undefined when it is no URL. */
function pathOf(url: string): string | undefined {
  try {
    return new URL(url).pathname.replace(/\/+$/, '');
  } catch {
    return undefined;
  }
}

/**
 * The card's interfaces a v0.3 client can use, first the one to prefer:
 * the JSON-RPC interface this host serves (its URL path ends with
 * `jsonRpcPath`, which also covers a handler mounted below a prefix; else,
 * for proxies that rewrite paths, the card's first JSON-RPC entry), then the
 * entries the card itself declares with a 0.x `protocolVersion`; never an
 * interface with a `tenant` (v0.3 requests cannot carry one). The
 * HTTP+JSON binding, gRPC and WebSocket entries at 1.0 are left out: they
 * speak 1.0 only (v0.3's REST paths and bodies differ), so a v0.3 client
 * falling back to them would fail.
 */
function v03Interfaces(card: AgentCard, jsonRpcPath: string | undefined): AgentInterface[] {
  // v0.3 has no tenants: an interface that needs one cannot serve a v0.3 client.
  const open = card.supportedInterfaces.filter((i) => !i.tenant);
  const declared = open.filter(speaksV03);
  const jsonRpc = jsonRpcPath === undefined ? [] : open.filter((i) => i.protocolBinding === 'JSONRPC' && !speaksV03(i));
  const served = jsonRpc.find((i) => pathOf(i.url)?.endsWith(jsonRpcPath!)) ?? jsonRpc[0];
  const all = served ? [served, ...declared] : declared;
  return all
    .filter((i, at) => all.findIndex((j) => j.url === i.url && j.protocolBinding === i.protocolBinding) === at)
    .map((i) => ({ ...i, protocolVersion: '0.3' }));
}

/**
 * The public card with the v0.3 discovery fields added, so that v0.3
 * clients (which read `url`, `preferredTransport` and `additionalInterfaces`)
 * find the v0.3 layer this host serves on its JSON-RPC path (requests
 * without `A2A-Version`). Adds `protocolVersion: "0.3.0"`, `url` and
 * `preferredTransport: "JSONRPC"` of that interface, `additionalInterfaces`
 * listing every interface that speaks 0.3 (see {@link v03Interfaces}), and
 * `supportsAuthenticatedExtendedCard` when the card's capabilities say.
 *
 * v1.0 readers are unaffected: `supportedInterfaces` and every v1.0 field
 * stay as they are (v1.0 readers ignore unknown fields, and prefer
 * `supportedInterfaces` when both shapes are present). Fields the card
 * already has win; the card is returned unchanged when no interface speaks
 * 0.3 (e.g. JSON-RPC is off) or when it is signed.
 */
export function withV03Discovery(card: AgentCard, jsonRpcPath: string | undefined): AgentCard {
  // A signed card is served exactly as given: verifiers that canonicalize the
  // JSON as received (v0.3-era SDKs sign and check every field they see)
  // would find added fields outside the signed payload and reject it. Sign
  // the v0.3 fields yourself if v0.3 clients must discover the agent.
  if (card.signatures !== undefined && card.signatures.length > 0) return card;
  const interfaces = v03Interfaces(card, jsonRpcPath);
  if (interfaces.length === 0) return card;
  const v03 = agentCardToV03({ ...card, supportedInterfaces: interfaces });
  const has = (field: string) => Object.hasOwn(card, field);
  const ownLocation = LOCATION_FIELDS.some(has);
  const added = V03_FIELDS.filter(
    (field) => v03[field] !== undefined && !has(field) && !(ownLocation && (LOCATION_FIELDS as readonly string[]).includes(field)),
  );
  return { ...card, ...Object.fromEntries(added.map((field) => [field, v03[field]])) };
}
