import type { AgentCard } from '@taskwire/core';
import type { CardCaching } from './agent-card.js';
import { AgentCardEndpoint } from './agent-card.js';
import type { HttpRequest, TextReply } from './http-types.js';
import { forwardedBaseUrl } from './public-url.js';

/** The public card, or a function of the base URL clients reach the host at that builds it. */
export type CardSource = AgentCard | ((baseUrl: string) => AgentCard);

/** How a {@link PublicCard} builds and serves its cards. */
export interface PublicCardOptions {
  /** The base URL a card function is called with (and the fallback when `trustProxy` finds nothing usable). */
  readonly publicUrl: string | undefined;
  /** Build the card from the base URL a trusted proxy reports (see `forwardedBaseUrl`). */
  readonly trustProxy: boolean;
  /** Applied to every built card (the v0.3 discovery fields). */
  readonly finish: (card: AgentCard) => AgentCard;
  readonly caching: CardCaching;
}

/** How many cards built for reported base URLs are kept; past that, the oldest is dropped (a client cannot grow memory). */
const MAX_BUILT = 32;

/** The request headers a card built from a proxy's report depends on (for shared caches). */
const VARY = 'Forwarded, X-Forwarded-Proto, X-Forwarded-Host';

/**
 * Serves the public card for the base URL each request was made at: a
 * fixed card as it is; a card function's card for `publicUrl`, or, with
 * `trustProxy`, for the base URL the request's forwarded headers report
 * (with `Vary` naming those headers). Each built card has its own ETag.
 */
export class PublicCard {
  private readonly built = new Map<string, AgentCardEndpoint>();
  private readonly fixed: AgentCardEndpoint | undefined;

  constructor(
    private readonly source: CardSource,
    private readonly options: PublicCardOptions,
  ) {
    if (typeof source !== 'function') {
      this.fixed = new AgentCardEndpoint(options.finish(source), options.caching);
      return;
    }
    if (options.publicUrl === undefined) {
      throw new TypeError('A card built from the base URL needs publicUrl: the URL clients reach this host at (e.g. https://agents.example.com)');
    }
    // Built now, so that a card function that throws does so at start, not at the first request.
    this.endpoint(options.publicUrl);
  }

  /** Answers a request for the card. */
  handle(request: HttpRequest): TextReply {
    if (this.fixed) return this.fixed.handle(request);
    const { publicUrl, trustProxy } = this.options;
    if (!trustProxy) return this.endpoint(publicUrl!).handle(request);
    const reply = this.endpoint(forwardedBaseUrl(request.headers, publicUrl!)).handle(request);
    return { ...reply, headers: { ...reply.headers, vary: VARY } };
  }

  private endpoint(baseUrl: string): AgentCardEndpoint {
    let endpoint = this.built.get(baseUrl);
    if (endpoint === undefined) {
      endpoint = new AgentCardEndpoint(this.options.finish((this.source as (baseUrl: string) => AgentCard)(baseUrl)), this.options.caching);
      if (this.built.size >= MAX_BUILT) this.built.delete(this.built.keys().next().value!);
      this.built.set(baseUrl, endpoint);
    }
    return endpoint;
  }
}
