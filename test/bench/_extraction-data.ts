// The labelled real pages the extraction bench scores and the fitting script learns from: the
// product-extraction-benchmark (94 pages, price/currency/availability/sku/brand) and
// us-retail-pages (24 US shops, price and the tab title), each page with its shop (the unit of
// leave-shops-out: a shop's pages are never in the fold that scores them).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { CORPORA } from '../corpora';

export type CorpusName = 'benchmark' | 'us-retail';

export interface LabelledPage {
  corpus: CorpusName;
  id: string;
  /** Registrable host without "www.": pages of one shop share it. */
  shop: string;
  url: string;
  html: string;
  /** Accepted values per field (price as decimal strings); `tab_title` for us-retail. */
  truth: Record<string, string[]>;
  /** Every labelled page of both corpora is a product page with one main product. */
  isProduct: true;
}

export function shopOf(url: string): string {
  return new URL(url).hostname.toLowerCase().replace(/^www\d?\./, '');
}

export function countryOf(url: string): string {
  const host = new URL(url).hostname;
  const tld = host.split('.').pop()!;
  if (host.endsWith('.co.uk') || tld === 'uk') return 'gb';
  if (tld.length === 2) return tld;
  return 'us';
}

const gunzip = (file: string) => gunzipSync(readFileSync(file)).toString('utf8');

export function loadBenchmark(): LabelledPage[] {
  const dir = path.join(CORPORA, 'product-extraction-benchmark');
  const truth = JSON.parse(readFileSync(path.join(dir, 'ground-truth.json'), 'utf8')) as Record<
    string,
    Record<string, string[] | string>
  >;
  const files = new Set(readdirSync(path.join(dir, 'html')));
  return Object.entries(truth)
    .filter(([id]) => files.has(`${id}.html.gz`))
    .map(([id, t]) => ({
      corpus: 'benchmark' as const,
      id,
      shop: shopOf(t.url as string),
      url: t.url as string,
      html: gunzip(path.join(dir, 'html', `${id}.html.gz`)),
      truth: Object.fromEntries(Object.entries(t).filter(([, v]) => Array.isArray(v))) as Record<string, string[]>,
      isProduct: true as const,
    }));
}

export function loadUsRetail(): LabelledPage[] {
  const dir = path.join(CORPORA, 'us-retail-pages');
  const labels = JSON.parse(readFileSync(path.join(dir, 'labels.json'), 'utf8')) as Record<
    string,
    { url: string; price: string[]; tab_title: string }
  >;
  return Object.entries(labels).map(([id, l]) => ({
    corpus: 'us-retail' as const,
    id,
    // One page per shop, and some shops' saved addresses are placeholders: the folder names the shop.
    shop: id,
    url: l.url,
    html: gunzip(path.join(dir, 'html', `${id}.html.gz`)),
    truth: { price: l.price, tab_title: [l.tab_title] },
    isProduct: true as const,
  }));
}

const words = (text: string) =>
  (
    text
      .toLowerCase()
      .normalize('NFKC')
      .match(/[\p{L}\p{N}]+/gu) ?? []
  ).filter((w) => w.length >= 2);

/**
 * The product part of a tab title: its segments split at " | ", " : ", " - " (and "... at
 * shop.com"), the first that does not name the page's host (a shop's name before the product's,
 * "Amazon.com : ...").
 */
export function productPartOfTabTitle(tabTitle: string, url: string): string {
  const host = new URL(url).hostname
    .replace(/^www\d?\./, '')
    .split('.')[0]
    .toLowerCase();
  const segments = tabTitle
    .split(/\s+[|:–—-]\s+|\s*\|\s*|\s+at\s+\S+\.com\b/i)
    .map((s) => s.trim())
    .filter((s) => words(s).length);
  const namesHost = (s: string) => words(s).length <= 3 && words(s).join('').includes(host);
  return segments.find((s) => !namesHost(s)) ?? segments[0] ?? tabTitle;
}

/**
 * A predicted title is the product's name when nearly all its words are in the tab title (no
 * glued prices, no breadcrumb trail, not the shop's address) and it holds at least a third of
 * the words of the title's product part, two at least (not the brand alone, nor a category;
 * shops' headings often shorten the tab title's long name, which is still the name).
 */
export function titleCorrect(predicted: string | null | undefined, tabTitle: string, url: string): boolean {
  if (!predicted) return false;
  const got = words(predicted);
  if (!got.length) return false;
  const inTab = new Set(words(tabTitle));
  const precision = got.filter((w) => inTab.has(w)).length / got.length;
  const part = words(productPartOfTabTitle(tabTitle, url));
  const have = new Set(got);
  const found = part.filter((w) => have.has(w)).length;
  return precision >= 0.8 && found >= Math.min(2, part.length) && found / Math.max(1, part.length) >= 0.35;
}

export function samePrice(accepted: string[], predicted: number | null | undefined): boolean {
  return predicted != null && accepted.some((a) => Math.abs(Number(a) - predicted) < 0.005);
}
