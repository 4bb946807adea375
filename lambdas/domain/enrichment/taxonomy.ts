// Maps a product to a Shopify Standard Product Taxonomy category by matching category names
// against what the store says: its product type and breadcrumbs weigh most, then the title
// (its head noun above all), tags, and a little of the description. Below a confidence
// threshold the answer is null: a wrong category is worse than none.
import { isColourWord } from './colour';
import { isMaterialWord } from './attributes';
import { titleParts, tokens } from './text';

export const TAXONOMY_GID_PREFIX = 'gid://shopify/TaxonomyCategory/';

export interface TaxonomyMatch {
  /** Global id, e.g. gid://shopify/TaxonomyCategory/aa-1-13-8. */
  id: string;
  path: string;
  leaf: string;
  score: number;
}

export interface TaxonomyInput {
  title: string | null;
  /** Left out of the title before matching: "Tommy Jeans" makes no T-shirt a pair of jeans. */
  brand?: string | null;
  description: string | null;
  tags: string[];
  storeProductType: string | null;
  breadcrumbs: string[];
}

interface Category {
  id: string;
  leaf: string;
  path: string;
  /** The leaf name's alternatives ("Sweatshirts & Hoodies" -> two), each a token list. */
  alternatives: string[][];
  /** Tokens of the ancestors' names that the leaf does not already carry. */
  context: string[];
}

interface TaxonomyIndex {
  categories: Category[];
  /** token -> categories whose leaf name holds it. */
  byToken: Map<string, number[]>;
  idf: Map<string, number>;
}

interface TaxonomyFile {
  version: string;
  categories: [string, string][];
}

let loading: Promise<TaxonomyIndex> | null = null;

/** Loads and indexes the bundled taxonomy once per process. */
export function taxonomyIndex(): Promise<TaxonomyIndex> {
  loading ??= import('./data/taxonomy.json', { with: { type: 'json' } }).then((module) =>
    buildIndex((module as unknown as { default: TaxonomyFile }).default),
  );
  return loading;
}

// Leaf names repeat ("Accessories", "T-Shirts"): tokenise each distinct name once while indexing.
const nameTokens = new Map<string, string[]>();
function tokensOfName(name: string): string[] {
  let list = nameTokens.get(name);
  if (!list) nameTokens.set(name, (list = tokens(name)));
  return list;
}

function buildIndex(file: TaxonomyFile): TaxonomyIndex {
  // Parents come before their children in the file, so paths and ancestor words build up.
  const pathById = new Map<string, string>();
  const wordsById = new Map<string, string[]>();
  const categories: Category[] = [];
  for (const [id, leaf] of file.categories) {
    const parentId = id.includes('-') ? id.slice(0, id.lastIndexOf('-')) : null;
    const parentPath = parentId ? pathById.get(parentId) : undefined;
    const ancestorWords = (parentId ? wordsById.get(parentId) : undefined) ?? [];
    const path = parentPath ? `${parentPath} > ${leaf}` : leaf;
    pathById.set(id, path);
    const leafWords = tokensOfName(leaf);
    wordsById.set(id, [...new Set([...ancestorWords, ...leafWords])]);
    const alternatives = leafAlternatives(leaf);
    const own = new Set(alternatives.flat());
    const context = ancestorWords.filter((t) => !own.has(t));
    categories.push({ id, leaf, path, alternatives, context });
  }
  const byToken = new Map<string, number[]>();
  categories.forEach((c, i) => {
    for (const t of new Set(c.alternatives.flat())) {
      const list = byToken.get(t);
      if (list) list.push(i);
      else byToken.set(t, [i]);
    }
  });
  const idf = new Map<string, number>();
  for (const [t, list] of byToken) idf.set(t, Math.log(categories.length / list.length));
  nameTokens.clear();
  return { categories, byToken, idf };
}

/**
 * A leaf name may list several things. "Sweatshirts & Hoodies" names two; "Paintball Harnesses &
 * Packs" shares its first words ("paintball packs"); "Sports & Energy Drinks" and "Baby & Toddler
 * Tops" share their last word ("sports drinks", "baby tops").
 */
function leafAlternatives(leaf: string): string[][] {
  const rawParts = leaf.split(/\s*(?:&|,|\band\b)\s*/).filter((p) => tokensOfName(p).length > 0);
  const parts = rawParts.map((p) => tokensOfName(p));
  if (parts.length < 2) return parts;
  const first = parts[0];
  const last = parts[parts.length - 1];
  const noun = last[last.length - 1];
  if (first.length > 1 && last.length === 1) {
    const qualifier = first.slice(0, -1);
    return parts.map((p, i) => (i === 0 || p.length > 1 ? p : [...qualifier, ...p]));
  }
  // A part that is no plural noun modifies the last part's noun: "Baby & Toddler Tops",
  // "Mobile Phone & Tablet Tripods"; so does a lone first word before a phrase ("Sports & Energy Drinks").
  return parts.map((p, i) => {
    if (i === parts.length - 1) return p;
    const plural = /[^s]s$/i.test(rawParts[i].trim());
    const modifies = !plural || (i === 0 && p.length === 1 && last.length > 1);
    return modifies && p[p.length - 1] !== noun ? [...p, noun] : p;
  });
}

interface Field {
  tokens: Set<string>;
  weight: number;
  /** Head nouns: the last word of each title segment ("Slim fit jeans" in "Versace - Slim fit jeans"). */
  heads?: Set<string>;
}

function fieldsOf(input: TaxonomyInput): Field[] {
  const fields: Field[] = [];
  const add = (list: string[], weight: number, heads?: Set<string>) => {
    if (list.length) fields.push({ tokens: new Set(list), weight, heads });
  };
  add(tokens(input.storeProductType), 3);
  const crumbs = input.breadcrumbs.filter((b) => b.trim());
  if (crumbs.length) {
    add(tokens(crumbs[crumbs.length - 1]), 2.5);
    add(tokens(crumbs.slice(0, -1).join(' ')), 1.2);
  }
  // "Rose gold" is a colour of metal, not a rose.
  const title = withoutBrand(input.title, input.brand)?.replace(/\brose[\s-]gold\b/gi, ' ') ?? null;
  if (title) {
    const heads = new Set<string>();
    const main: string[] = [];
    const qualifiers: string[] = [];
    for (const segment of title.split(/\s[-–|/]\s|[|:,;()]/).slice(0, 12)) {
      const { head, rest } = titleParts(segment);
      const words = tokens(head);
      if (words.length) heads.add(words[words.length - 1]);
      main.push(...words);
      qualifiers.push(...tokens(rest));
    }
    // "Orange Crush amp" is no orange, and a "Leather Bag" is no leather.
    add(
      main.filter((t) => heads.has(t) || !isDescriptive(t)),
      2,
      heads,
    );
    add(
      qualifiers.filter((t) => !isDescriptive(t)),
      0.7,
    );
  }
  add(
    tokens(input.tags.join(' ')).filter((t) => !isDescriptive(t)),
    1,
  );
  add(
    tokens(input.description?.slice(0, 400)).filter((t) => !isDescriptive(t)),
    0.4,
  );
  return fields;
}

function withoutBrand(title: string | null, brand: string | null | undefined): string | null {
  if (!title || !brand || brand.trim().length < 2) return title;
  const escaped = brand.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const stripped = title.replace(new RegExp(escaped, 'gi'), ' ').trim();
  return stripped || title;
}

/** Colour and material words describe a product; they name its category only as its head noun. */
function isDescriptive(token: string): boolean {
  return isColourWord(token) || isMaterialWord(token);
}

/** Ancestor words that narrow a category to a special audience or setting. */
const QUALIFIERS = new Set(
  (
    'outdoor baby toddler kid child pet dog cat bird fish reptile horse maternity activewear doll toy vehicle motor boat ' +
    'aircraft commercial industrial costume sport sporting hunting fishing camping marine musical craft collectible ' +
    'paintball equestrian scale model'
  ).split(' '),
);

/** The minimum score for an answer: one clear leaf word in the title, or the store's type. */
const THRESHOLD = 9;

export async function matchTaxonomy(input: TaxonomyInput): Promise<TaxonomyMatch | null> {
  const index = await taxonomyIndex();
  const fields = fieldsOf(input);
  if (!fields.length) return null;
  const allTokens = new Set<string>();
  for (const f of fields) for (const t of f.tokens) allTokens.add(t);
  const strongTokens = new Set<string>();
  for (const f of fields) if (f.weight >= 1) for (const t of f.tokens) strongTokens.add(t);

  const candidates = new Set<number>();
  for (const t of allTokens) for (const i of index.byToken.get(t) ?? []) candidates.add(i);

  let best: { category: Category; score: number } | null = null;
  for (const i of candidates) {
    const category = index.categories[i];
    // A vertical ("Toys & Games", "Home & Garden") is too broad to be an answer.
    if (!category.id.includes('-')) continue;
    const score = scoreCategory(category, fields, allTokens, strongTokens, index.idf);
    if (score > 0 && (!best || score > best.score)) best = { category, score };
  }
  if (!best || best.score < THRESHOLD) return null;
  const { category, score } = best;
  return { id: `${TAXONOMY_GID_PREFIX}${category.id}`, path: category.path, leaf: category.leaf, score };
}

function scoreCategory(
  category: Category,
  fields: Field[],
  allTokens: Set<string>,
  strongTokens: Set<string>,
  idf: Map<string, number>,
): number {
  let leafScore = 0;
  let strongMatch = false;
  for (const field of fields) {
    let bestAlternative = 0;
    for (const alternative of category.alternatives) {
      if (!alternative.every((t) => field.tokens.has(t))) continue;
      let value = 0;
      for (const t of alternative) value += idf.get(t) ?? 0;
      // The title's head noun names the product: "Duffle Bag with Wheels" is a bag.
      if (field.heads?.has(alternative[alternative.length - 1])) value *= 1.6;
      bestAlternative = Math.max(bestAlternative, value);
    }
    if (bestAlternative > 0) {
      leafScore += field.weight * bestAlternative;
      if (field.weight >= 1) strongMatch = true;
    }
  }
  if (!strongMatch) return 0;
  let context = 0;
  for (const t of category.context) {
    if (strongTokens.has(t)) context += 0.6 * (idf.get(t) ?? 1);
    else if (allTokens.has(t)) context += 0.25 * (idf.get(t) ?? 1);
    // Unconfirmed ancestry is a cost: "Mirrors" under Decor beats "Mirrors" under Bird Toys, and
    // an indoor "Coffee Table" is no outdoor one unless the store says so.
    else context -= QUALIFIERS.has(t) ? 2.5 : 0.15;
  }
  return leafScore + context;
}
