// Recognises anti-bot interstitials (Cloudflare, DataDome, PerimeterX, Imperva, Akamai, plain
// captcha forms) so they are reported as bot walls instead of being parsed as store pages.

/** Vendor fingerprints that only occur on challenge pages. */
const STRONG_MARKERS = [
  'cf-challenge',
  'cf_chl_opt',
  '/cdn-cgi/challenge-platform/',
  'captcha-delivery.com',
  'px-captcha',
  '_incapsula_resource',
  'pardon our interruption',
  'attention required! | cloudflare',
  'just a moment...',
];

/** Phrases and widgets that also appear on ordinary pages (newsletter forms): trusted only on small pages. */
const WEAK_MARKERS = [
  'are you a robot',
  'are you a human',
  'verify you are human',
  'verify you are a human',
  'not a robot',
  'g-recaptcha',
  'h-captcha',
  'hcaptcha.com',
  'name="captcha"',
  'id="captcha"',
  'access denied',
];

/** Challenge pages are small; real store pages with a captcha widget somewhere are not. */
const SMALL_PAGE_CHARS = 30_000;

export function looksLikeBotWall(body: string, headers: Record<string, string | string[] | undefined> = {}): boolean {
  if (String(headers['cf-mitigated'] ?? '').toLowerCase() === 'challenge') return true;
  const head = body.slice(0, 64 * 1024).toLowerCase();
  if (STRONG_MARKERS.some((m) => head.includes(m))) return true;
  return body.length < SMALL_PAGE_CHARS && WEAK_MARKERS.some((m) => head.includes(m));
}
