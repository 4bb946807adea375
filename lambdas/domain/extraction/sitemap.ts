// Sitemap reader: <urlset> and <sitemapindex> (any or no namespace, the old 0.84 one too), gzip
// bodies, CDATA, whitespace in <loc>, xhtml:link alternates, image:image extensions, lastmod,
// and plain-text sitemaps (one URL per line). Pure (node:zlib only).
//
// Security: a DOCTYPE is never processed. It is cut out before parsing and entity references
// other than XML's five predefined ones and numeric character references are dropped, so
// external entities (XXE) and entity bombs cannot expand; `doctypeRefused` reports it.
import { gunzipSync } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';

export interface SitemapImage {
  loc: string;
  title: string | null;
  caption: string | null;
}

export interface SitemapEntry {
  loc: string;
  lastmod: string | null;
  changefreq: string | null;
  priority: number | null;
  /** hreflang alternates (xhtml:link href), in document order. */
  alternates: string[];
  images: SitemapImage[];
}

export interface SitemapResult {
  /** null when the body is not a sitemap (see problem). */
  type: 'urlset' | 'sitemapindex' | 'text' | null;
  entries: SitemapEntry[];
  /** Why nothing (or not everything) could be read; null when all went well. */
  problem: string | null;
  /** A DOCTYPE was present and ignored (entities never expanded). */
  doctypeRefused: boolean;
  /** More entries than maxEntries: the rest were dropped. */
  truncated: boolean;
}

export interface ParseSitemapOptions {
  /** Resolves relative <loc> values; without it only absolute http(s) URLs are kept. */
  baseUrl?: string;
  /** The sitemap protocol's limit is 50,000 URLs per file. */
  maxEntries?: number;
  /** Uncompressed size limit; the protocol's is 50 MB. */
  maxBytes?: number;
}

const DEFAULT_MAX_ENTRIES = 50_000;
const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  // Entities are decoded below by our own allow-list, never by the parser.
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => ['url', 'sitemap', 'link', 'image'].includes(name),
});

// DOCTYPE with an optional internal subset; the subset may contain '>' inside declarations.
const DOCTYPE = /<!DOCTYPE\b[^[>]*(\[[\s\S]*?\]\s*)?>/gi;

const empty = (problem: string | null, extra: Partial<SitemapResult> = {}): SitemapResult => ({
  type: null,
  entries: [],
  problem,
  doctypeRefused: false,
  truncated: false,
  ...extra,
});

export function parseSitemap(input: string | Uint8Array, options: ParseSitemapOptions = {}): SitemapResult {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;

  let text: string;
  if (typeof input === 'string') {
    text = input;
  } else {
    let bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
      try {
        bytes = gunzipSync(bytes, { maxOutputLength: maxBytes });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        return empty(
          code === 'ERR_BUFFER_TOO_LARGE' ? `uncompressed sitemap exceeds ${maxBytes} bytes` : 'invalid gzip data',
        );
      }
    }
    if (bytes.byteLength > maxBytes) return empty(`sitemap exceeds ${maxBytes} bytes`);
    text = bytes.toString('utf8');
  }
  if (text.length > maxBytes) return empty(`sitemap exceeds ${maxBytes} bytes`);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  text = text.trimStart();
  if (!text) return empty('empty body');
  if (!text.startsWith('<')) return parseTextSitemap(text, options.baseUrl, maxEntries);

  let doctypeRefused = false;
  text = text.replace(DOCTYPE, () => {
    doctypeRefused = true;
    return '';
  });
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) return empty('unterminated DOCTYPE refused', { doctypeRefused: true });

  let document: Record<string, unknown>;
  try {
    document = parser.parse(text) as Record<string, unknown>;
  } catch (error) {
    return empty(`not well-formed XML: ${(error as Error).message.slice(0, 200)}`, { doctypeRefused });
  }

  const rootName = Object.keys(document).find((k) => !k.startsWith('?') && !k.startsWith('#'));
  if (rootName !== 'urlset' && rootName !== 'sitemapindex') {
    return empty(rootName ? `not a sitemap: root element <${rootName}>` : 'no root element', { doctypeRefused });
  }
  const root = document[rootName];
  const items = (isRecord(root) ? root[rootName === 'urlset' ? 'url' : 'sitemap'] : undefined) as unknown[] | undefined;

  const entries: SitemapEntry[] = [];
  let truncated = false;
  for (const item of items ?? []) {
    if (!isRecord(item)) continue;
    const loc = absoluteUrl(textOf(item.loc), options.baseUrl);
    if (!loc) continue;
    if (entries.length >= maxEntries) {
      truncated = true;
      break;
    }
    entries.push({
      loc,
      lastmod: textOf(item.lastmod) || null,
      changefreq: textOf(item.changefreq) || null,
      priority: toPriority(textOf(item.priority)),
      alternates: arrayOf(item.link)
        .map((link) =>
          isRecord(link) ? absoluteUrl(decodeEntities(String(link['@_href'] ?? '')), options.baseUrl) : null,
        )
        .filter((href): href is string => href !== null),
      images: arrayOf(item.image).flatMap((image) => {
        if (!isRecord(image)) return [];
        const imageLoc = absoluteUrl(textOf(image.loc), options.baseUrl);
        return imageLoc
          ? [{ loc: imageLoc, title: textOf(image.title) || null, caption: textOf(image.caption) || null }]
          : [];
      }),
    });
  }
  return {
    type: rootName,
    entries,
    problem: truncated ? `more than ${maxEntries} entries; the rest were dropped` : null,
    doctypeRefused,
    truncated,
  };
}

function parseTextSitemap(text: string, baseUrl: string | undefined, maxEntries: number): SitemapResult {
  if (/^\s*<|<\?xml/i.test(text)) return empty('not a sitemap');
  const entries: SitemapEntry[] = [];
  let truncated = false;
  for (const line of text.split(/\r?\n/)) {
    const loc = absoluteUrl(line.trim(), baseUrl);
    if (!loc) continue;
    if (entries.length >= maxEntries) {
      truncated = true;
      break;
    }
    entries.push({ loc, lastmod: null, changefreq: null, priority: null, alternates: [], images: [] });
  }
  if (!entries.length) return empty('not a sitemap: no URLs in plain text body');
  return { type: 'text', entries, problem: null, doctypeRefused: false, truncated };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

/** Text content of a parsed element: plain string, or `#text` when it also had attributes. */
function textOf(value: unknown): string {
  if (Array.isArray(value)) return textOf(value[0]);
  if (typeof value === 'string') return decodeEntities(value).trim();
  if (typeof value === 'number') return String(value);
  if (isRecord(value)) {
    const inner = value['#text'];
    return typeof inner === 'string' || typeof inner === 'number' ? decodeEntities(String(inner)).trim() : '';
  }
  return '';
}

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML's predefined and numeric references; any other entity reference is dropped unexpanded. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z_][\w.-]*);/gi, (_match, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    }
    return PREDEFINED[name] ?? '';
  });
}

function absoluteUrl(value: string, baseUrl: string | undefined): string | null {
  if (!value) return null;
  try {
    const url = baseUrl ? new URL(value, baseUrl) : new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

function toPriority(value: string): number | null {
  if (!value) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}
