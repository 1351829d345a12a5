import type { AgentCard } from '@taskwire/core';
import type { TransportRegistry } from '@taskwire/client';
import { agentCardUrl, DEFAULT_TRANSPORTS, parseAgentCard, selectInterface } from '@taskwire/client';
import type { RedirectHop } from './card-fetch.js';
import { failureText, fetchCard } from './card-fetch.js';
import type { CardProblem } from './card-problems.js';
import { isV03Card, schemaProblems } from './card-problems.js';
import { signatureProblems } from './card-signatures.js';
import type { CheckResult } from './checks.js';
import type { InterfaceProbe } from './probe.js';
import { probeInterfaces } from './probe.js';
import type { Credentials } from './transports.js';
import { INSPECTOR_TRANSPORTS } from './transports.js';

/** Which interface a client picks, and why each other one was passed over (§8.3.2). */
export interface TransportChoice {
  /** Who picks: `inspector` (Node: every transport), `browser` (`createClient` with its default fetch transports). */
  readonly client: 'inspector' | 'browser';
  /** The index in `supportedInterfaces` of the interface picked, when there is one. */
  readonly picked?: number;
  /** One line per interface, in the card's order. */
  readonly reasons: readonly string[];
}

/** Everything the card panel shows. */
export interface CardReport {
  readonly cardUrl: string;
  /** Each redirect the card request met: those on the card's origin followed, one to another origin shown and not followed. */
  readonly redirects: readonly RedirectHop[];
  /** HTTP status of the card request's last answer (0 when it did not answer). */
  readonly httpStatus: number;
  /** The card as fetched (undefined when it was no JSON). */
  readonly raw?: unknown;
  /** `1.0` or `0.3`, by the card's shape. */
  readonly cardVersion?: '1.0' | '0.3';
  /** The card as the client reads it (a v0.3 card converted), when it has usable interfaces. */
  readonly card?: AgentCard;
  readonly problems: readonly CardProblem[];
  readonly choices: readonly TransportChoice[];
  readonly probes: readonly InterfaceProbe[];
}

/** Explains `selectInterface` over `registry`: the first interface (in the card's order) it can speak. */
function choose(card: AgentCard, registry: TransportRegistry, client: TransportChoice['client']): TransportChoice {
  let picked: number | undefined;
  const reasons = card.supportedInterfaces.map((iface, i) => {
    const name = `${iface.protocolBinding} ${iface.protocolVersion} at ${iface.url}`;
    try {
      const selected = selectInterface({ ...card, supportedInterfaces: [iface] }, registry);
      selected.transport.close?.().catch(() => undefined);
    } catch {
      return `${name}: not spoken (${Object.hasOwn(registry, iface.protocolBinding) ? `no ${iface.protocolBinding} transport for version ${iface.protocolVersion}` : 'binding not registered'})`;
    }
    if (picked !== undefined) return `${name}: spoken, but a preferred interface comes first`;
    picked = i;
    return `${name}: picked, the first interface in the card's order that this client speaks (§8.3.2)`;
  });
  return { client, ...(picked !== undefined && { picked }), reasons };
}

/**
 * Reads the card of the agent at `url` and reports on it: the redirects on
 * the way (see `fetchCard`: none followed to another origin), its problems
 * (schema, v0.3-only fields, bindings, versions, signatures, interfaces
 * that do not answer), the interface each kind of client would pick, and a
 * probe of every interface. `credentials` go to the origin of `url` and
 * their `trustedOrigins` only. Never throws: an agent that does not answer
 * is a report with a problem saying so. `timeoutMs` bounds the card
 * request and each probe (defaults: those of `fetchCard`, `probeInterfaces`).
 */
export async function inspectCard(url: string, credentials?: Credentials, timeoutMs?: number): Promise<CardReport> {
  const { cardUrl, redirects, response, error } = await fetchCard(url, credentials, timeoutMs);
  if (!response || error !== undefined) {
    const problem: CardProblem = { path: '(card)', rule: '§8.2 Discovery', message: error ?? `the card at ${cardUrl} does not load`, severity: 'error' };
    return { cardUrl, redirects, httpStatus: response?.status ?? 0, problems: [problem], choices: [], probes: [] };
  }
  const text = await response.text().catch((error: unknown) => new Error(failureText(error)));
  let raw: unknown;
  try {
    raw = typeof text === 'string' ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: said below
  }
  const base = { cardUrl, redirects, httpStatus: response.status };
  if (!response.ok || raw === undefined) {
    const type = response.headers.get('content-type') ?? 'no content type';
    const body = typeof text === 'string' ? `${type}: ${JSON.stringify(text.slice(0, 60))}${text.length > 60 ? '...' : ''}` : `the body did not arrive: ${text.message}`;
    const atRoot = cardUrl !== agentCardUrl(url) ? `; ${url} has a path, so its card is looked for under that path (to check the agent whose card is at ${agentCardUrl(url)}, give ${new URL(url).origin})` : '';
    const message = response.ok ? `the card is not JSON (${body}), expected an AgentCard JSON object` : `the card request answered HTTP ${response.status} (${body}), expected 200 with the card as JSON${atRoot}`;
    return { ...base, raw, problems: [{ path: '(card)', rule: '§8.2 Discovery', message, severity: 'error' }], choices: [], probes: [] };
  }
  let card: AgentCard | undefined;
  const problems: CardProblem[] = [];
  try {
    card = parseAgentCard(raw);
  } catch (error) {
    problems.push({ path: 'supportedInterfaces', rule: '§8.3.1 Supported interfaces', message: (error as Error).message, severity: 'error' });
  }
  problems.push(...schemaProblems(raw, card), ...(await signatureProblems(raw)));
  const probes = card ? await probeInterfaces(card, credentials, url, timeoutMs) : [];
  for (const probe of probes) {
    if (probe.status === 'unreachable' || probe.status === 'refused') {
      problems.push({
        path: `supportedInterfaces[${probe.index}].url`,
        rule: '§8.3.1 Each interface MUST declare its URL accurately',
        message: `${probe.binding} at ${probe.url} ${probe.status === 'unreachable' ? 'does not answer' : 'answers, but not in A2A'}: ${probe.detail}`,
        severity: 'error',
      });
    }
  }
  const choices = card ? [choose(card, INSPECTOR_TRANSPORTS, 'inspector'), choose(card, DEFAULT_TRANSPORTS, 'browser')] : [];
  return { ...base, raw, cardVersion: isV03Card(raw) ? '0.3' : '1.0', ...(card && { card }), problems, choices, probes };
}

/**
 * The card check of the battery, from a card report: failed when the card
 * has a problem of severity `error`; its evidence is one line per problem
 * (severity, path, rule, what was expected).
 */
export function cardCheck(report: CardReport): CheckResult {
  const errors = report.problems.filter((p) => p.severity === 'error');
  return {
    id: 'card',
    name: 'The agent card is a valid v1.0 card whose interfaces answer',
    status: errors.length === 0 ? 'passed' : 'failed',
    evidence: report.problems.map((p) => `${p.severity} ${p.path} [${p.rule}]: ${p.message}`),
  };
}
