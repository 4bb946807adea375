// Reads a customer_profile of any JSON shape into the engine's ProfileSignals. The conventional
// shape (style.fit/color/aesthetic/silhouette/avoid, preferences.in_stock_only,
// usage_context.activities, purchase_behavior.value) is one of many a client may send: keys are
// recognised wherever they sit, in snake, camel or kebab case, with strings, lists or
// comma-separated text as values. Anything else is ignored; the walk is bounded in depth, nodes
// and string length, so a hostile profile costs little and never fails the request.
import type { ProfileSignals } from '../search/api';

const MAX_DEPTH = 6;
const MAX_NODES = 2_000;
const MAX_TERMS = 20;
const MAX_TERM_LENGTH = 60;

type Signal =
  | 'inStockOnly'
  | 'avoid'
  | 'colours'
  | 'fits'
  | 'aesthetics'
  | 'activities'
  | 'value'
  | 'comfort'
  | 'durability'
  | 'travel';

/** Normalised key -> signal it feeds. Keys are lower-case with words joined by "_". */
const KEYS: Record<string, Signal> = {
  in_stock_only: 'inStockOnly',
  in_stock: 'inStockOnly',
  only_in_stock: 'inStockOnly',
  available_only: 'inStockOnly',
  avoid: 'avoid',
  avoids: 'avoid',
  dislikes: 'avoid',
  exclude: 'avoid',
  excluded: 'avoid',
  never: 'avoid',
  color: 'colours',
  colour: 'colours',
  colors: 'colours',
  colours: 'colours',
  favorite_colors: 'colours',
  favourite_colours: 'colours',
  favorite_color: 'colours',
  favourite_colour: 'colours',
  preferred_colors: 'colours',
  preferred_colours: 'colours',
  fit: 'fits',
  fits: 'fits',
  silhouette: 'fits',
  silhouettes: 'fits',
  preferred_fit: 'fits',
  aesthetic: 'aesthetics',
  aesthetics: 'aesthetics',
  style: 'aesthetics',
  styles: 'aesthetics',
  vibe: 'aesthetics',
  activities: 'activities',
  activity: 'activities',
  hobbies: 'activities',
  environment: 'activities',
  use_cases: 'activities',
  value: 'value',
  budget: 'value',
  price_sensitivity: 'value',
  price_sensitive: 'value',
  comfort_priority: 'comfort',
  durability_priority: 'durability',
  travel_friendly: 'travel',
};

const CHEAP =
  /\b(budget|value|cheap|afford|bargain|deal|low|economy|frugal|price[\s_-]?(?:conscious|sensitive)|saving|thrift|discount)/i;
const DEAR = /\b(premium|luxury|high[\s_-]?end|splurge|designer|quality[\s_-]?first)/i;

/** "inStockOnly", "in-stock only", "In Stock Only" -> "in_stock_only". */
export function normaliseKey(key: string): string {
  return key
    .slice(0, 80)
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
}

function truthy(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (['true', 'yes', 'y', '1', 'on', 'always', 'required'].includes(text)) return true;
    if (['false', 'no', 'n', '0', 'off', 'never'].includes(text)) return false;
  }
  return undefined;
}

/** Words of a value: strings split on commas, slashes, "and"/"or"; lists flattened one level. */
function terms(value: unknown): string[] {
  const texts = Array.isArray(value) ? value.slice(0, MAX_TERMS * 2) : [value];
  const out: string[] = [];
  for (const text of texts) {
    if (typeof text !== 'string') continue;
    for (const part of text.slice(0, 500).split(/[,;/|&+]|\band\b|\bor\b/i)) {
      const term = part
        .toLowerCase()
        .replace(/^\s*(?:no|not|non|avoid|without)\s+/, '')
        .replace(/[^\p{L}\p{N}\s'-]+/gu, ' ')
        .replace(/\s+/g, ' ')
        .trim();
      if (term && term.length <= MAX_TERM_LENGTH) out.push(term);
    }
  }
  return out;
}

export function interpretProfile(profile: unknown): ProfileSignals {
  const lists: Record<'avoid' | 'colours' | 'fits' | 'aesthetics' | 'activities', Set<string>> = {
    avoid: new Set(),
    colours: new Set(),
    fits: new Set(),
    aesthetics: new Set(),
    activities: new Set(),
  };
  let inStockOnly: boolean | undefined;
  let value: boolean | undefined;
  let nodes = 0;

  const add = (list: keyof typeof lists, words: string[]) => {
    for (const word of words) if (lists[list].size < MAX_TERMS) lists[list].add(word);
  };

  const visit = (node: unknown, depth: number) => {
    if (depth > MAX_DEPTH || !node || typeof node !== 'object') return;
    const entries = Array.isArray(node)
      ? node.map((v) => ['', v] as const)
      : Object.entries(node as Record<string, unknown>);
    for (const [rawKey, child] of entries) {
      if (++nodes > MAX_NODES) return;
      const signal = rawKey ? KEYS[normaliseKey(rawKey)] : undefined;
      const isContainer =
        child !== null &&
        typeof child === 'object' &&
        !(Array.isArray(child) && child.every((c) => typeof c !== 'object' || c === null));
      if (isContainer) {
        visit(child, depth + 1);
        continue;
      }
      switch (signal) {
        case 'inStockOnly': {
          const flag = truthy(child);
          if (flag !== undefined) inStockOnly = flag;
          break;
        }
        case 'value': {
          const flag = truthy(child);
          if (flag !== undefined) value = flag;
          else if (typeof child === 'string') value = CHEAP.test(child) ? true : DEAR.test(child) ? false : value;
          break;
        }
        case 'comfort':
          if (truthy(child)) add('fits', ['relaxed', 'comfortable']);
          break;
        case 'durability':
          if (truthy(child)) add('aesthetics', ['durable']);
          break;
        case 'travel':
          if (truthy(child)) add('activities', ['travel']);
          break;
        case undefined:
          break;
        default:
          add(signal, terms(child));
      }
    }
  };
  visit(profile, 0);

  const signals: ProfileSignals = {};
  if (inStockOnly) signals.inStockOnly = true;
  if (value !== undefined) signals.value = value;
  if (lists.avoid.size) signals.avoid = [...lists.avoid];
  if (lists.colours.size) signals.colours = [...lists.colours];
  if (lists.fits.size) signals.fits = [...lists.fits];
  if (lists.aesthetics.size) signals.aesthetics = [...lists.aesthetics];
  if (lists.activities.size) signals.activities = [...lists.activities];
  return signals;
}
