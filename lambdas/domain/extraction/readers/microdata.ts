// Microdata (itemscope/itemprop) and schema.org RDFa Lite (typeof/property) converted to the
// JSON-LD node shape, so one interpreter serves both.
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { interpretSchemaNodes, pageHeading, type SchemaNode, type SchemaReading } from './schema-org';

const URL_ATTR: Record<string, string> = {
  a: 'href',
  link: 'href',
  area: 'href',
  img: 'src',
  source: 'src',
  video: 'src',
  audio: 'src',
  iframe: 'src',
  embed: 'src',
  object: 'data',
};

const isScope = (el: Element) => el.attribs.itemscope !== undefined || el.attribs.typeof !== undefined;
const propNames = (el: Element): string[] =>
  (el.attribs.itemprop ?? el.attribs.property ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((p) => p.replace(/^(schema|s):/i, '').replace(/^https?:\/\/schema\.org\//i, ''))
    .filter((p) => !p.includes(':'));

function typeOf(el: Element): string | null {
  const raw = el.attribs.itemtype ?? el.attribs.typeof ?? '';
  const first = raw.split(/\s+/).filter(Boolean)[0];
  if (!first) return null;
  return first.replace(/^https?:\/\/(www\.)?schema\.org\//i, '').replace(/^schema:/i, '');
}

function textOf($: CheerioAPI, el: Element): string {
  return $(el).text().replace(/\s+/g, ' ').trim();
}

function propertyValue($: CheerioAPI, el: Element): unknown {
  if (isScope(el)) return scopeToNode($, el);
  const a = el.attribs;
  if (a.content !== undefined) return a.content;
  const urlAttr = URL_ATTR[el.name];
  if (urlAttr && a[urlAttr]) return a[urlAttr];
  if (el.name === 'meta') return a.content ?? '';
  if (el.name === 'time' && a.datetime) return a.datetime;
  if ((el.name === 'data' || el.name === 'meter') && a.value) return a.value;
  if (a.resource) return a.resource;
  return textOf($, el);
}

function scopeToNode($: CheerioAPI, scope: Element, depth = 0): SchemaNode {
  const node: SchemaNode = {};
  const type = typeOf(scope);
  if (type) node['@type'] = type;
  if (depth > 6) return node;
  const add = (name: string, value: unknown) => {
    if (node[name] === undefined) node[name] = value;
    else node[name] = [...(Array.isArray(node[name]) ? (node[name] as unknown[]) : [node[name]]), value];
  };
  const walk = (children: AnyNode[]) => {
    for (const child of children) {
      if (child.type !== 'tag' && child.type !== 'script') continue;
      const el = child as Element;
      const names = propNames(el);
      if (names.length) {
        const value = isScope(el) ? scopeToNode($, el, depth + 1) : propertyValue($, el);
        for (const name of names) add(name, value);
      }
      if (!isScope(el)) walk(el.children);
    }
  };
  walk(scope.children);
  // <meta itemprop="brand" itemscope itemtype="schema.org/Brand" content="X">: a scope on an
  // element with no children states its name in `content`.
  if (Object.keys(node).length <= 1 && scope.attribs.content?.trim()) node.name = scope.attribs.content.trim();
  return node;
}

/** Top-level scopes: those that are not themselves a property of another scope. */
export function microdataNodes($: CheerioAPI): SchemaNode[] {
  const nodes: SchemaNode[] = [];
  $('[itemscope], [typeof]').each((_, el) => {
    if (propNames(el).length && $(el).parents('[itemscope], [typeof]').length) return;
    if (!typeOf(el)) return;
    nodes.push(scopeToNode($, el));
  });
  return nodes;
}

const LOOSE_OFFER_PROPS = new Set(['price', 'priceCurrency', 'availability']);

/**
 * Offer properties written outside any scope (themes that lost their itemscope): one distinct
 * `itemprop=price` with an `itemprop=priceCurrency` is the page's offer. Several distinct prices
 * (cards of other products) or no currency: nothing.
 */
export function looseOffer($: CheerioAPI): SchemaNode | null {
  const found: Record<string, string[]> = { price: [], priceCurrency: [], availability: [] };
  for (const el of $('[itemprop]').toArray() as Element[]) {
    const names = propNames(el).filter((n) => LOOSE_OFFER_PROPS.has(n));
    if (!names.length || isScope(el)) continue;
    let scoped = false;
    for (let p = el.parent, k = 0; p && p.type === 'tag' && k < 200; p = p.parent, k++)
      if (isScope(p as Element)) {
        scoped = true;
        break;
      }
    if (scoped) continue;
    const value = String(propertyValue($, el) ?? '').trim();
    if (value) for (const n of names) found[n].push(value);
  }
  const prices = new Set(found.price);
  if (prices.size !== 1 || !found.priceCurrency.length) return null;
  const offer: SchemaNode = { '@type': 'Offer', price: [...prices][0], priceCurrency: found.priceCurrency[0] };
  if (found.availability.length) offer.availability = found.availability[0];
  return { '@type': 'Product', offers: offer };
}

export function readMicrodata($: CheerioAPI, pageUrl: string): SchemaReading {
  const nodes = microdataNodes($);
  // No Product scope: offer properties outside any scope stand for the page's product.
  if (!nodes.some((n) => /Product/.test(String(n['@type'] ?? '')))) {
    const loose = looseOffer($);
    if (loose) nodes.push(loose);
  }
  return interpretSchemaNodes(nodes, 'microdata', pageUrl, () => pageHeading($));
}
