// robots.txt per Google's rules (RFC 9309): user-agent groups (most specific group wins,
// groups with the same name merge), longest matching allow/disallow with `*` and `$`, allow wins
// ties, Crawl-delay, Sitemap lines anywhere. Tolerant like Google and Protego: BOM, CRLF/CR,
// comments, misspelt directives, lines without a colon, rules before any user-agent (ignored).
// Pure; validated against the 381 Protego/Google cases in ../shared/corpora/robots-txt.

export interface RobotsRules {
  /** True when `userAgent` may fetch `url` (absolute URL or path). */
  canFetch(url: string, userAgent: string): boolean;
  /** Crawl-delay in seconds for the group that applies to `userAgent`, or null. */
  crawlDelay(userAgent: string): number | null;
  /** Sitemap URLs in file order (resolved against `baseUrl` when given). */
  sitemaps: string[];
}

export interface ParseRobotsOptions {
  /** Resolves relative Sitemap: URLs and normalises their scheme case. */
  baseUrl?: string;
}

/** Google reads only the first 500 KiB of a robots.txt; the rest is ignored. */
export const ROBOTS_MAX_BYTES = 500 * 1024;

/** A robots.txt that allows everything (4xx or missing file). */
export const ALLOW_ALL: RobotsRules = { canFetch: () => true, crawlDelay: () => null, sitemaps: [] };
/** A robots.txt that blocks everything (5xx or unreachable, per Google). */
export const DISALLOW_ALL: RobotsRules = {
  canFetch: (url) => isRobotsTxtPath(url),
  crawlDelay: () => null,
  sitemaps: [],
};

const DISALLOW_FIELDS = new Set(['disallow', 'dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw']);
const ALLOW_FIELDS = new Set(['allow']);
const USER_AGENT_FIELDS = new Set(['user-agent', 'useragent', 'user agent']);
const SITEMAP_FIELDS = new Set(['sitemap', 'sitemaps', 'site-map']);
const CRAWL_DELAY_FIELDS = new Set(['crawl-delay', 'crawl delay']);
const OTHER_KNOWN_FIELDS = new Set(['request-rate', 'request rate', 'host']);

const isKnownField = (field: string) =>
  DISALLOW_FIELDS.has(field) ||
  ALLOW_FIELDS.has(field) ||
  USER_AGENT_FIELDS.has(field) ||
  SITEMAP_FIELDS.has(field) ||
  CRAWL_DELAY_FIELDS.has(field) ||
  OTHER_KNOWN_FIELDS.has(field);

const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;
const DECIMAL = /^[+]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

interface Rule {
  allow: boolean;
  /** Normalised pattern; its length is the rule's priority. */
  pattern: string;
}

class Group {
  rules: Rule[] = [];
  crawlDelay: number | null = null;
  private sorted = false;

  constructor(readonly userAgent: string) {}

  addRule(allow: boolean, rawPattern: string): void {
    // A `$` inside a pattern may also be a literal dollar sign in the URL (percent-encoded).
    if (rawPattern.includes('$')) this.addRule(allow, rawPattern.replaceAll('$', '%24'));
    const pattern = normalizePattern(rawPattern);
    if (!pattern) return;
    this.rules.push({ allow, pattern });
    this.sorted = false;
    // Allowing /dir/index.html means the directory index /dir/ is allowed too.
    if (allow && pattern.endsWith('/index.html')) this.addRule(true, `${pattern.slice(0, -10)}$`);
  }

  /** Match score for a crawler name: length of our token when it occurs in the name, 1 for `*`. */
  score(robotName: string): number {
    if (this.userAgent === '*') return 1;
    return robotName.includes(this.userAgent) ? this.userAgent.length : 0;
  }

  canFetch(url: string): boolean {
    if (!this.sorted) {
      // Longest pattern first; on equal length allow first. Array.sort is stable.
      this.rules.sort((a, b) => b.pattern.length - a.pattern.length || Number(b.allow) - Number(a.allow));
      this.sorted = true;
    }
    const path = normalizePath(url);
    for (const rule of this.rules) {
      if (patternMatches(rule.pattern, path)) return rule.allow;
    }
    return true;
  }
}

export function parseRobots(text: string, options: ParseRobotsOptions = {}): RobotsRules {
  let content = typeof text === 'string' ? text : '';
  if (content.charCodeAt(0) === 0xfeff) content = content.slice(1);
  if (content.length > ROBOTS_MAX_BYTES) content = content.slice(0, ROBOTS_MAX_BYTES);

  const groups = new Map<string, Group>();
  const sitemaps: string[] = [];
  let current: Group[] = [];
  let previousField: string | null = null;

  for (const rawLine of content.split(LINE_BREAK)) {
    const hash = rawLine.indexOf('#');
    const line = (hash === -1 ? rawLine : rawLine.slice(0, hash)).trim();
    if (!line) continue;

    const split = splitDirective(line);
    if (!split) continue;
    const field = split.field.trim().toLowerCase();
    const value = split.value.trim();
    if (!value) {
      previousField = field;
      continue;
    }
    if (!current.length && !USER_AGENT_FIELDS.has(field) && !SITEMAP_FIELDS.has(field)) continue;

    if (USER_AGENT_FIELDS.has(field)) {
      // Consecutive user-agent lines share one group; any other line in between starts a new one.
      if (previousField && !USER_AGENT_FIELDS.has(previousField)) current = [];
      const name = value.toLowerCase();
      // Wildcards are not part of a product token; be generous and also register the name without them.
      const names = name !== '*' && name.includes('*') ? [name, name.replaceAll('*', '')] : [name];
      for (const agent of names) {
        if (!agent) continue;
        let group = groups.get(agent);
        if (!group) {
          group = new Group(agent);
          groups.set(agent, group);
        }
        if (!current.includes(group)) current.push(group);
      }
    } else if (ALLOW_FIELDS.has(field)) {
      for (const group of current) group.addRule(true, value);
    } else if (DISALLOW_FIELDS.has(field)) {
      for (const group of current) group.addRule(false, value);
    } else if (SITEMAP_FIELDS.has(field)) {
      const sitemap = resolveSitemap(value, options.baseUrl);
      if (sitemap) sitemaps.push(sitemap);
    } else if (CRAWL_DELAY_FIELDS.has(field)) {
      const seconds = DECIMAL.test(value) ? Number(value) : NaN;
      if (Number.isFinite(seconds)) for (const group of current) group.crawlDelay = seconds;
    }
    previousField = field;
  }

  const matchCache = new Map<string, Group | null>();
  const groupFor = (userAgent: string): Group | null => {
    const robotName = (userAgent ?? '').trim().toLowerCase();
    const cached = matchCache.get(robotName);
    if (cached !== undefined) return cached;
    let best: Group | null = null;
    let bestScore = 0;
    for (const group of groups.values()) {
      const score = group.score(robotName);
      if (score > bestScore) {
        best = group;
        bestScore = score;
      }
    }
    if (matchCache.size < 100) matchCache.set(robotName, best);
    return best;
  };

  return {
    canFetch(url, userAgent) {
      if (isRobotsTxtPath(url)) return true;
      const group = groupFor(userAgent);
      return group ? group.canFetch(url) : true;
    },
    crawlDelay(userAgent) {
      return groupFor(userAgent)?.crawlDelay ?? null;
    },
    sitemaps,
  };
}

/** `field: value`, or for lines without a colon a known field followed by a space and a value. */
function splitDirective(line: string): { field: string; value: string } | null {
  const colon = line.indexOf(':');
  if (colon !== -1) return { field: line.slice(0, colon), value: line.slice(colon + 1) };
  // Known fields have at most two words, so only the first few spaces matter (keeps huge lines linear).
  const parts = line.split(' ', 4);
  if (parts.length < 2) return null;
  let candidate = parts[0];
  for (let i = 1; i < Math.min(parts.length, 3); i++) {
    if (isKnownField(candidate.toLowerCase().trim()))
      return { field: candidate, value: line.slice(candidate.length + 1) };
    candidate += ` ${parts[i]}`;
  }
  return null;
}

function resolveSitemap(value: string, baseUrl: string | undefined): string | null {
  if (!baseUrl) return value;
  try {
    return new URL(value, baseUrl).href;
  } catch {
    return null;
  }
}

function isRobotsTxtPath(url: string): boolean {
  return splitUrl(url).path === '/robots.txt';
}

// --- Percent-encoding normalisation (both sides are normalised the same way before matching) ---

const HEX = /^[0-9a-fA-F]{2}$/;
const ALWAYS_SAFE = /[A-Za-z0-9_.\-~]/;

/** Decodes %XX escapes except those whose character is in `keepEscaped`, then re-encodes. */
function recode(text: string, keepEscaped: string, safe: string): string {
  if (!text.includes('%') && /^[A-Za-z0-9_.\-~/]*$/.test(text)) return text;
  const bytes: number[] = [];
  const pieces = text.split('%');
  const pushText = (s: string) => {
    for (const b of Buffer.from(s, 'utf8')) bytes.push(b);
  };
  pushText(pieces[0]);
  for (let i = 1; i < pieces.length; i++) {
    const piece = pieces[i];
    const hex = piece.slice(0, 2);
    if (piece.length >= 2 && HEX.test(hex)) {
      const code = parseInt(hex, 16);
      if (!keepEscaped.includes(String.fromCharCode(code))) {
        bytes.push(code);
        pushText(piece.slice(2));
        continue;
      }
      pushText(`%${hex.toUpperCase()}${piece.slice(2)}`);
      continue;
    }
    pushText(`%${piece}`);
  }
  const decoded = Buffer.from(new TextDecoder('utf-8').decode(Uint8Array.from(bytes)), 'utf8');
  let out = '';
  for (const byte of decoded) {
    const ch = String.fromCharCode(byte);
    out +=
      byte < 0x80 && (ALWAYS_SAFE.test(ch) || safe.includes(ch))
        ? ch
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

interface UrlParts {
  path: string;
  params: string;
  query: string;
  fragment: string;
}

/** Splits like Python's urlparse, keeping only what follows the authority. */
function splitUrl(url: string): UrlParts {
  let rest = url;
  let fragment = '';
  let query = '';
  const hashAt = rest.indexOf('#');
  if (hashAt !== -1) {
    fragment = rest.slice(hashAt + 1);
    rest = rest.slice(0, hashAt);
  }
  const queryAt = rest.indexOf('?');
  if (queryAt !== -1) {
    query = rest.slice(queryAt + 1);
    rest = rest.slice(0, queryAt);
  }
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(rest);
  if (scheme) rest = rest.slice(scheme[0].length);
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    rest = slash === -1 ? '' : rest.slice(slash);
  }
  let params = '';
  const lastSlash = rest.lastIndexOf('/');
  const semicolon = rest.indexOf(';', lastSlash + 1);
  if (semicolon !== -1) {
    params = rest.slice(semicolon + 1);
    rest = rest.slice(0, semicolon);
  }
  return { path: rest, params, query, fragment };
}

const joinUrl = (p: UrlParts) =>
  p.path + (p.params ? `;${p.params}` : '') + (p.query ? `?${p.query}` : '') + (p.fragment ? `#${p.fragment}` : '');

function normalizePath(url: string): string {
  const parts = splitUrl(url);
  parts.path = recode(parts.path, '/%', '/%');
  return joinUrl(parts) || '/';
}

function normalizePattern(raw: string): string {
  let pattern = raw;
  // An absolute URL as a pattern can never match a path; keep it inert rather than guess.
  if (pattern.startsWith('https://') || pattern.startsWith('http://')) pattern = `/${pattern}`;
  if (pattern.startsWith('//')) pattern = `//${pattern}`;
  let lastChar = '';
  const last = pattern[pattern.length - 1];
  if (last === '?' || last === ';' || last === '$') {
    lastChar = last;
    pattern = pattern.slice(0, -1);
  }
  const parts = splitUrl(pattern);
  parts.path = recode(parts.path, '/*$%', '/*%=') + lastChar;
  return joinUrl(parts);
}

/**
 * Google pattern match: `*` any sequence, trailing `$` anchors the end, otherwise a prefix match.
 * Iterative glob with single backtrack point: O(path x pattern) at worst, no regex blow-up.
 */
export function patternMatches(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  if (!body.includes('*')) return anchored ? path === body : path.startsWith(body);
  let p = 0;
  let s = 0;
  let starAt = -1;
  let resumeAt = 0;
  while (s < path.length) {
    if (p < body.length && body[p] !== '*' && body[p] === path[s]) {
      p++;
      s++;
    } else if (p < body.length && body[p] === '*') {
      starAt = p++;
      resumeAt = s;
    } else if (p === body.length && !anchored) {
      return true; // whole pattern consumed: prefix match
    } else if (starAt !== -1) {
      p = starAt + 1;
      s = ++resumeAt;
    } else {
      return false;
    }
  }
  while (p < body.length && body[p] === '*') p++;
  return p === body.length;
}
