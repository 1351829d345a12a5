import { lookup as dnsLookup } from 'node:dns/promises';
import type { AddressKind, IpRange } from './ip-address.js';
import { classifyAddress, inRange, parseIp, parseRange } from './ip-address.js';

/** One resolved address of a webhook host (`family` 4 or 6). */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a host name to every address it has (like `dns.lookup(host, { all: true })`). */
export type HostLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** A webhook URL that passed the guard, with the addresses it was checked against (connect to these, not to a new lookup). */
export interface ResolvedWebhook {
  readonly url: URL;
  /** The host without IPv6 brackets. */
  readonly hostname: string;
  readonly addresses: readonly ResolvedAddress[];
}

/** Why the guard refused a URL. */
export type UnsafeWebhookReason = 'invalid-url' | 'scheme' | 'credentials' | 'unresolvable' | AddressKind;

/** The guard refused a webhook URL; `reason` says why and the message says how to allow it. */
export class UnsafeWebhookError extends Error {
  override readonly name = 'UnsafeWebhookError';
  constructor(
    readonly url: string,
    readonly reason: UnsafeWebhookReason,
    message: string,
    /** The offending address, when the host resolved to a non-public one. */
    readonly address?: string,
  ) {
    super(message);
  }
}

/** Options of {@link createWebhookGuard}. */
export interface WebhookGuardOptions {
  /**
   * Hosts and addresses allowed although they are not public: host names
   * (`hooks.internal`, or `*.internal` for its subdomains), IP addresses
   * (`127.0.0.1`, `::1`) and CIDR ranges (`10.0.0.0/8`). For tests and
   * private deployments; everything else must resolve to public addresses.
   */
  readonly allow?: readonly string[];
  /** DNS resolution (default: `node:dns/promises` `lookup(host, { all: true })`). */
  readonly lookup?: HostLookup;
}

/** Checks webhook URLs against SSRF: see {@link createWebhookGuard}. */
export interface WebhookGuard {
  /** Resolves `url` and returns it with its checked addresses, or throws {@link UnsafeWebhookError}. */
  resolve(url: string): Promise<ResolvedWebhook>;
}

/** Node's resolver, every address, in the order the system returns them. */
export const systemLookup: HostLookup = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

function article(kind: string): string {
  return /^[aeiou]/.test(kind) ? 'an' : 'a';
}

/**
 * An SSRF guard for webhook URLs: only `http:` and `https:`, no credentials
 * in the URL, and the host must resolve only to public unicast addresses.
 * Refused when ANY address is unspecified, loopback, private (RFC 1918,
 * fc00::/7), carrier-grade NAT, link-local, cloud metadata
 * (169.254.169.254, fd00:ec2::254), multicast or reserved, including the
 * IPv4-mapped, NAT64 and 6to4 IPv6 forms of those. `allow` lets chosen
 * hosts, addresses or ranges through. Resolve again right before each
 * request and connect to the returned addresses, so a name that changes its
 * answer (DNS rebinding) cannot slip a private address in.
 */
export function createWebhookGuard(options: WebhookGuardOptions = {}): WebhookGuard {
  const ranges: IpRange[] = [];
  const names: string[] = [];
  for (const entry of options.allow ?? []) {
    const text = entry.trim().toLowerCase();
    if (parseIp(text.split('/')[0]!)) ranges.push(parseRange(text));
    else if (/^(\*\.)?[a-z0-9_.-]+$/.test(text)) names.push(text.replace(/\.$/, ''));
    else throw new TypeError(`allow: ${JSON.stringify(entry)} is not a host name, IP address or CIDR range`);
  }
  const lookup = options.lookup ?? systemLookup;
  const nameAllowed = (host: string) => names.some((n) => (n.startsWith('*.') ? host.endsWith(n.slice(1)) : host === n));

  return {
    async resolve(text) {
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        throw new UnsafeWebhookError(text, 'invalid-url', `${JSON.stringify(text)} is not a valid URL`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new UnsafeWebhookError(text, 'scheme', `webhook URLs must be http or https, not ${url.protocol.slice(0, -1)}`);
      }
      if (url.username || url.password) {
        throw new UnsafeWebhookError(text, 'credentials', 'a webhook URL must not carry credentials: put them in the config\'s authentication instead');
      }
      const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
      const literal = parseIp(hostname);
      let addresses: readonly ResolvedAddress[];
      if (literal) {
        addresses = [{ address: hostname, family: literal.length === 4 ? 4 : 6 }];
      } else {
        try {
          addresses = await lookup(hostname);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
          throw new UnsafeWebhookError(text, 'unresolvable', `the webhook host ${hostname} could not be resolved (${code}); check the URL`);
        }
        if (addresses.length === 0) throw new UnsafeWebhookError(text, 'unresolvable', `the webhook host ${hostname} has no addresses; check the URL`);
      }
      if (nameAllowed(hostname)) return { url, hostname, addresses };
      for (const { address } of addresses) {
        const bytes = parseIp(address);
        if (!bytes) throw new UnsafeWebhookError(text, 'unresolvable', `the webhook host ${hostname} resolved to ${address}, which is not an IP address`);
        if (ranges.some((r) => inRange(bytes, r))) continue;
        const kind = classifyAddress(bytes);
        if (kind === undefined) continue;
        const via = literal ? '' : ` resolves to ${address}, which`;
        throw new UnsafeWebhookError(
          text,
          kind,
          `the webhook host ${hostname}${via} is ${article(kind)} ${kind} address; webhooks must reach public addresses ` +
            `(to allow it for tests or a private deployment, list it in the delivery's allow option, e.g. allow: [${JSON.stringify(literal ? hostname : address)}])`,
          address,
        );
      }
      return { url, hostname, addresses };
    },
  };
}
