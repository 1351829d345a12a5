import type { AgentCard } from '@taskwire/core';
import { AgentCardSchema, issuePath, negotiateVersion } from '@taskwire/core';
import { KNOWN_BINDINGS } from './transports.js';

/** One thing wrong (or worth knowing) about a card: where, which rule of the spec, what. */
export interface CardProblem {
  /** The field path in the card as fetched, e.g. `supportedInterfaces[1].protocolBinding`. */
  readonly path: string;
  /** The spec rule, e.g. `§4.4.1 AgentCard: required field`. */
  readonly rule: string;
  readonly message: string;
  /** `error`: the card breaks the v1.0 schema or cannot be trusted; `warning`: it works, but not as v1.0 says; `info`: worth knowing. */
  readonly severity: 'error' | 'warning' | 'info';
}

/** Fields only a v0.3 card has (v1.0 lists interfaces in `supportedInterfaces`, §A.2). */
const V03_FIELDS: Readonly<Record<string, string>> = {
  url: 'v1.0 puts each endpoint in supportedInterfaces[].url',
  preferredTransport: 'v1.0 prefers the first entry of supportedInterfaces (§8.3.1)',
  additionalInterfaces: 'v1.0 lists every interface in supportedInterfaces',
  protocolVersion: 'v1.0 gives the version per interface (supportedInterfaces[].protocolVersion)',
  supportsAuthenticatedExtendedCard: 'v1.0 says capabilities.extendedAgentCard',
  security: 'v1.0 says securityRequirements',
};

/** The `path` of the one row that lists the v0.3 fields a v1.0 card keeps for v0.3 clients. */
export const V03_COMPATIBILITY_PATH = '(v0.3 compatibility)';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when `raw` is a v0.3 card (it has `url` or `preferredTransport`, and no `supportedInterfaces`). */
export function isV03Card(raw: unknown): boolean {
  return isObject(raw) && !('supportedInterfaces' in raw) && ('url' in raw || 'preferredTransport' in raw);
}

/**
 * The problems of the card `raw` (as fetched) against the v1.0 schema
 * (core's `AgentCardSchema`, §4.4): missing or mistyped fields, v0.3-only
 * fields, interfaces with a binding the inspector does not know or a
 * version it cannot negotiate (checked on `card`, the card as the client
 * reads it, so a v0.3 card's interfaces are checked too).
 */
export function schemaProblems(raw: unknown, card: AgentCard | undefined): CardProblem[] {
  if (!isObject(raw)) return [{ path: '(card)', rule: '§8.2 Agent Card discovery', message: 'the card is not a JSON object', severity: 'error' }];
  const problems: CardProblem[] = [];
  const v03 = isV03Card(raw);
  const v03Fields = Object.keys(V03_FIELDS).filter((field) => field in raw);
  if (v03) {
    for (const field of v03Fields) problems.push({ path: field, rule: '§A.2 v0.3-only field', message: `"${field}" is a v0.3 field; ${V03_FIELDS[field]}`, severity: 'warning' });
  } else if (v03Fields.length > 0) {
    // A v1.0 card may keep v0.3 fields for v0.3 clients (v1.0 clients ignore them): expected compatibility, one row, not a problem per field.
    const message = `${v03Fields.map((f) => `"${f}"`).join(', ')} serve v0.3 clients; v1.0 clients ignore them (expected compatibility, not a problem)`;
    problems.push({ path: V03_COMPATIBILITY_PATH, rule: '§A.2 v0.3 compatibility', message, severity: 'info' });
  }
  const parsed = AgentCardSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issuePath(issue.path) || '(card)';
      const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message);
      // A v0.3 card misses supportedInterfaces by design: that is the v0.3 warning above, not a second error.
      if (v03 && path === 'supportedInterfaces') continue;
      problems.push({
        path,
        rule: missing ? '§4.4.1 AgentCard: required field' : '§4.4 AgentCard schema',
        message: missing ? `required field "${path}" is missing` : issue.message,
        severity: 'error',
      });
    }
  }
  (card?.supportedInterfaces ?? []).forEach((iface, i) => {
    const at = v03 ? (i === 0 ? 'url' : `additionalInterfaces[${i - 1}]`) : `supportedInterfaces[${i}]`;
    if (!KNOWN_BINDINGS.includes(iface.protocolBinding)) {
      problems.push({
        path: `${at}.protocolBinding`,
        rule: '§4.4.6 AgentInterface: protocolBinding',
        message: `unknown binding "${iface.protocolBinding}": no client here speaks it (known: ${KNOWN_BINDINGS.join(', ')})`,
        severity: 'warning',
      });
    }
    try {
      negotiateVersion(iface.protocolVersion, { next: true });
    } catch {
      problems.push({
        path: `${at}.protocolVersion`,
        rule: '§3.6 Versioning',
        message: `protocol version "${iface.protocolVersion}" is none of 1.0, 1.1 (the dev-1.1 draft) and 0.3`,
        severity: 'warning',
      });
    }
  });
  return problems;
}
