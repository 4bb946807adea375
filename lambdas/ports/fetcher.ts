// What the extraction engine needs from the network. The got-based adapter implements it
// (lambdas/adapters/http-fetch); the domain never imports got, dns or process.env.

export interface FetchRequest {
  url: string;
  /** Two-letter country: sent as Accept-Language, chooses the egress proxy if one is set. */
  countryCode?: string;
  /** Extra request headers (e.g. Accept for a JSON probe). */
  headers?: Record<string, string>;
  /** Skip the robots.txt check (only for robots.txt itself). */
  ignoreRobots?: boolean;
}

export interface FetchedPage {
  requestedUrl: string;
  /** Landing URL after redirects. */
  finalUrl: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  contentType: string;
  body: string;
  /** Raw bytes, only for non-text bodies the caller asked for via Accept (e.g. a gzipped sitemap). */
  bodyBytes?: Uint8Array;
}

/**
 * Why a fetch produced no usable page. The engine maps these to outcomes:
 * robots_disallowed, bot_wall, captcha -> automated_access_not_permitted;
 * malformed_url, blocked_address -> malformed_url; the rest -> other.
 */
export type FetchFailureKind =
  | 'malformed_url'
  | 'blocked_address'
  | 'robots_disallowed'
  | 'bot_wall'
  | 'timeout'
  | 'dns'
  | 'network'
  | 'http_status'
  | 'too_large'
  | 'non_html'
  | 'too_many_redirects';

export class FetchFailure extends Error {
  constructor(
    readonly kind: FetchFailureKind,
    message: string,
    readonly details: { status?: number; finalUrl?: string } = {},
  ) {
    super(message);
    this.name = 'FetchFailure';
  }
}

export interface PageFetcher {
  /** Resolves with the page (any status the caller may inspect) or rejects with FetchFailure. */
  fetch(request: FetchRequest): Promise<FetchedPage>;
}
