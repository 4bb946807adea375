// Why a URL gets no tracking link (DECISIONS, Affiliate results); the contract documents each.
export const AFFILIATE_REASONS = ['merchant_not_in_network', 'malformed_url', 'stand_down'] as const;
export type AffiliateReason = (typeof AFFILIATE_REASONS)[number];

export const AFFILIATE_REASON_TEXT: Record<AffiliateReason, string> = {
  merchant_not_in_network:
    "the URL's registrable domain (www., alternates and subdomains included) is no merchant of the affiliate network",
  malformed_url: 'the string is not an http(s) URL with a valid hostname',
  stand_down:
    "the URL already carries an affiliate network's tracking (afsrc=1, affsource or a network click id) or is a network's redirect link; it is not re-wrapped",
};
