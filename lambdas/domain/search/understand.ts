// Query understanding, offline and deterministic: rules that read what shoppers write. Price
// constraints, negations, gender and age group, brands (from the catalog), colours (ISCC-NBS
// family through the enrichment's curated colour table), and the taxonomy category of what is
// left. What is understood leaves the text; the remaining words are matched with synonyms,
// stems and typo tolerance. Explicit constraints (price, negations, brand, a stated gender or
// age) filter; inferred ones (colour, category) boost.
import type { UnderstoodQuery } from './api';
import type { TermGroup } from '../../ports/search-index';
import { colourFamily, isColourWord } from '../enrichment/colour';
import { fold } from '../enrichment/text';
import { matchTaxonomy, TAXONOMY_GID_PREFIX } from '../enrichment/taxonomy';
import { analyze, normalise, synonymsOf, typoBudget } from './text';

export interface Understanding {
  understood: UnderstoodQuery;
  groups: TermGroup[];
  /** Each entry: index terms whose presence together drops a product ("without glass beads" -> [glass, bead]). */
  exclude: string[][];
  /** Genders / age groups a product of known gender / age must have. */
  genders?: string[];
  ageGroups?: string[];
  /** A child's age group was stated ("kids", "baby"): a product of unknown age is no child's product. */
  ageKnown?: boolean;
  /** "in stock", "available": only available products. */
  inStock: boolean;
  /** "cheap", "affordable", "budget": cheaper first among equals. */
  value: boolean;
  /** Brands named in passing whose name is mostly an ordinary word here: they boost, never filter. */
  brandBoosts?: string[];
  /** Words that score where they occur without being required (colour words that are also things). */
  optional?: string[];
  /** 'gentle' when every colour came from such a word ("wine glasses"). */
  colourStrength?: 'firm' | 'gentle';
}

const SYNONYM_WEIGHT = 0.9;

const CURRENCY_SYMBOL: Record<string, string> = { $: 'USD', '£': 'GBP', '€': 'EUR' };
const CURRENCY_WORD: Record<string, string> = {
  usd: 'USD',
  dollar: 'USD',
  dollars: 'USD',
  bucks: 'USD',
  buck: 'USD',
  eur: 'EUR',
  euro: 'EUR',
  euros: 'EUR',
  gbp: 'GBP',
  pound: 'GBP',
  pounds: 'GBP',
  quid: 'GBP',
  chf: 'CHF',
  francs: 'CHF',
};

// An amount: optional symbol, a number (1,299 / 49.99 / 1.5k), optional currency word.
const AMOUNT = String.raw`([$£€])?\s*(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(k)?(?:\s*(usd|dollars?|bucks?|eur|euros?|gbp|pounds?|quid|chf|francs))?`;

interface Amount {
  value: number;
  currency?: string;
  marked: boolean;
}

function amountOf(groups: Array<string | undefined>): Amount {
  const [symbol, digits, thousands, word] = groups;
  let value = Number(digits!.replace(/,/g, ''));
  if (thousands) value *= 1000;
  const currency = (symbol && CURRENCY_SYMBOL[symbol]) || (word && CURRENCY_WORD[word]) || undefined;
  return { value, currency, marked: !!currency };
}

const PRICE_RULES: Array<{
  pattern: RegExp;
  read: (m: RegExpExecArray) => { min?: number; max?: number; currency?: string } | null;
}> = [
  {
    // "between 40 and 80", "from $30 to $60"
    pattern: new RegExp(String.raw`\b(?:between|from)\s+${AMOUNT}\s*(?:and|to|-|–)\s*${AMOUNT}`, 'i'),
    read: (m) => range(amountOf(m.slice(1, 5)), amountOf(m.slice(5, 9)), true),
  },
  {
    // "$30-60", "30 - 60 dollars", "30 to 60 euros": a range needs a currency to be a price
    pattern: new RegExp(String.raw`(?<![\w.])${AMOUNT}\s*(?:-|–|to)\s*${AMOUNT}`, 'i'),
    read: (m) => range(amountOf(m.slice(1, 5)), amountOf(m.slice(5, 9)), false),
  },
  {
    pattern: new RegExp(
      String.raw`(?:\b(?:under|below|less than|lower than|cheaper than|max(?:imum)?|up to|at most|no more than|not more than|not over|within|budget(?: of)?|max price(?: of)?)|<=?)\s*${AMOUNT}`,
      'i',
    ),
    read: (m) => {
      const a = amountOf(m.slice(1, 5));
      return { max: a.value, currency: a.currency };
    },
  },
  {
    pattern: new RegExp(
      String.raw`(?:\b(?:over|above|more than|at least|min(?:imum)?|starting at|no less than|from)|>=?)\s*${AMOUNT}`,
      'i',
    ),
    read: (m) => {
      const a = amountOf(m.slice(1, 5));
      // "from 40" without a currency may be a size or a year; "from $40" is a price.
      if (/^from/i.test(m[0]) && !a.marked) return null;
      return { min: a.value, currency: a.currency };
    },
  },
  {
    // "100 or less", "$50 and under", "60 max", "40 tops"
    pattern: new RegExp(
      String.raw`(?<![\w.])${AMOUNT}\s*(?:or less|or under|or below|or cheaper|and under|and below|max(?:imum)?|tops|at most)\b`,
      'i',
    ),
    read: (m) => {
      const a = amountOf(m.slice(1, 5));
      return { max: a.value, currency: a.currency };
    },
  },
  {
    // "$80 and up", "150+", "100 or more", "50 and above"
    pattern: new RegExp(
      String.raw`(?<![\w.])${AMOUNT}\s*(?:\+|(?:or more|or above|or over|and up|and above|and over|minimum)\b)`,
      'i',
    ),
    read: (m) => {
      const a = amountOf(m.slice(1, 5));
      return { min: a.value, currency: a.currency };
    },
  },
  {
    pattern: new RegExp(String.raw`\b(?:around|about|approx(?:imately)?|roughly|~)\s*${AMOUNT}`, 'i'),
    read: (m) => {
      const a = amountOf(m.slice(1, 5));
      return {
        min: Math.floor(a.value * 0.8 * 100) / 100,
        max: Math.ceil(a.value * 1.2 * 100) / 100,
        currency: a.currency,
      };
    },
  },
  {
    // A bare "$50 hoodie" / "50 euro mug" is a budget.
    pattern: new RegExp(String.raw`(?<![\w.])${AMOUNT}`, 'i'),
    read: (m) => {
      const a = amountOf(m.slice(1, 5));
      return a.marked ? { max: a.value, currency: a.currency } : null;
    },
  },
];

function range(a: Amount, b: Amount, worded: boolean): { min: number; max: number; currency?: string } | null {
  if (!worded && !a.marked && !b.marked) return null;
  const [min, max] = a.value <= b.value ? [a.value, b.value] : [b.value, a.value];
  return { min, max, currency: a.currency ?? b.currency };
}

function readPrice(text: string): { text: string; price?: UnderstoodQuery['price'] } {
  let price: UnderstoodQuery['price'] | undefined;
  let rest = text;
  for (const rule of PRICE_RULES) {
    const match = rule.pattern.exec(rest);
    if (!match) continue;
    const read = rule.read(match);
    if (!read) continue;
    price = { ...price };
    if (read.min !== undefined) price.min = Math.max(price.min ?? 0, read.min);
    if (read.max !== undefined) price.max = price.max === undefined ? read.max : Math.min(price.max, read.max);
    if (read.currency) price.currency = read.currency;
    rest = `${rest.slice(0, match.index)} ${rest.slice(match.index + match[0].length)}`;
  }
  return { text: rest, price };
}

const GENDER: Record<string, { gender?: string; age?: string }> = {
  women: { gender: 'women' },
  womens: { gender: 'women' },
  woman: { gender: 'women' },
  ladies: { gender: 'women' },
  lady: { gender: 'women' },
  female: { gender: 'women' },
  her: { gender: 'women' },
  womenswear: { gender: 'women' },
  men: { gender: 'men' },
  mens: { gender: 'men' },
  man: { gender: 'men' },
  gents: { gender: 'men' },
  male: { gender: 'men' },
  him: { gender: 'men' },
  menswear: { gender: 'men' },
  unisex: { gender: 'unisex' },
  girl: { gender: 'girls', age: 'kids' },
  girls: { gender: 'girls', age: 'kids' },
  boy: { gender: 'boys', age: 'kids' },
  boys: { gender: 'boys', age: 'kids' },
  kid: { age: 'kids' },
  kids: { age: 'kids' },
  child: { age: 'kids' },
  children: { age: 'kids' },
  childrens: { age: 'kids' },
  youth: { age: 'kids' },
  junior: { age: 'kids' },
  juniors: { age: 'kids' },
  toddler: { age: 'kids' },
  toddlers: { age: 'kids' },
  baby: { age: 'baby' },
  babies: { age: 'baby' },
  infant: { age: 'baby' },
  infants: { age: 'baby' },
  newborn: { age: 'baby' },
  teen: { age: 'teen' },
  teens: { age: 'teen' },
  teenager: { age: 'teen' },
  son: { gender: 'boys', age: 'kids' },
  sons: { gender: 'boys', age: 'kids' },
  daughter: { gender: 'girls', age: 'kids' },
  daughters: { gender: 'girls', age: 'kids' },
  husband: { gender: 'men' },
  boyfriend: { gender: 'men' },
  wife: { gender: 'women' },
  girlfriend: { gender: 'women' },
  adult: { age: 'adult' },
  adults: { age: 'adult' },
  grownup: { age: 'adult' },
};
const GENDERS_ALLOWED: Record<string, string[]> = {
  women: ['women', 'unisex'],
  men: ['men', 'unisex'],
  unisex: ['unisex'],
  girls: ['girls', 'unisex'],
  boys: ['boys', 'unisex'],
};
const AGES_ALLOWED: Record<string, string[]> = {
  kids: ['kids', 'baby', 'teen'],
  baby: ['baby', 'kids'],
  teen: ['teen', 'kids'],
  adult: ['adult'],
};
const ALL_GENDERS = ['women', 'men', 'unisex', 'girls', 'boys'];
const ALL_AGES = ['adult', 'kids', 'baby', 'teen'];

// Words that carry no product meaning in a shopping query.
const FILLER = new Set(
  (
    'a an the and or for with in on of to by from at as is are be my me i we you our your some any show find looking look ' +
    'want need buy get please something thing things item items product products that this which who what good nice best great ' +
    'new top quality cool pair one ones like'
  )
    .split(/\s+/)
    .filter(Boolean),
);
const VALUE_WORDS = new Set(['cheap', 'cheapest', 'affordable', 'budget', 'inexpensive', 'bargain', 'deal', 'deals']);
// Not "non": "non slip", "non stick" and "non toxic" name what a product is.
const NEGATIONS = new Set([
  'not',
  'no',
  'without',
  'except',
  'excluding',
  'exclude',
  'minus',
  'never',
  'avoid',
  'isnt',
  'arent',
  'doesnt',
  'dont',
  'nor',
]);
// "no show socks", "no iron shirt": products, not negations.
const NO_COMPOUNDS = new Set(['show', 'iron', 'slip', 'stick', 'scratch', 'spill', 'tie', 'touch', 'fade']);
// After a negation, words that lead to the thing negated ("not in black", "without a hood").
const NEGATION_LEADS = new Set([
  'in',
  'a',
  'an',
  'any',
  'the',
  'made',
  'with',
  'of',
  'for',
  'by',
  'from',
  'have',
  'has',
  'contain',
  'containing',
  'include',
  'including',
]);
const SHADES = new Set([
  'light',
  'dark',
  'pale',
  'deep',
  'bright',
  'dusty',
  'soft',
  'neon',
  'hot',
  'baby',
  'pastel',
  'muted',
]);
// Colour words a query uses that the title-safe colour list leaves out (they are also nouns).
const QUERY_COLOURS = new Set(
  (
    'navy sand cream tan camel rose mint sage burgundy wine olive khaki charcoal ivory coral teal turquoise lavender lilac ' +
    'mustard beige taupe maroon plum peach rust emerald gold silver bronze copper denim slate stone'
  ).split(' '),
);
// What a negated word also rules out ("without hood" drops hoodies).
const NEGATION_EXPANSIONS: Record<string, string[]> = {
  hood: ['hoodie', 'hooded', 'hoody'],
  sleeve: ['sleeved'],
  lace: ['laced'],
  zip: ['zipper', 'zipped'],
};

/** The ISCC-NBS family of a colour word a shopper writes; null for any other word. */
export async function colourOf(word: string): Promise<string | null> {
  const folded = fold(word);
  if (!isColourWord(folded) && !QUERY_COLOURS.has(folded)) return null;
  return colourFamily(folded);
}

/** The families a colour phrase from a profile names ("jet black" -> black, "Navy Blue" -> blue). */
export async function coloursOfPhrase(phrase: string): Promise<string[]> {
  const whole = await colourOf(phrase.trim());
  if (whole) return [whole];
  const families: string[] = [];
  for (const word of wordsOf(phrase)) {
    const family = await colourOf(word);
    if (family && !families.includes(family)) families.push(family);
  }
  return families;
}

/** A word the colour tables know that is no colour on its own in a query ("jet", "army"): it only qualifies the colour after it. */
async function colourModifier(word: string): Promise<boolean> {
  return !(await colourOf(word)) && (await colourFamily(fold(word))) !== null;
}

/** The term groups a negated phrase excludes: the phrase itself, and for one word its kin ("hood" -> hoodie, hooded). */
export function excludeGroupsOf(phrase: string): string[][] {
  const terms = [...new Set(analyze(phrase))];
  if (!terms.length) return [];
  const groups = [terms];
  const words = phrase.split(' ');
  const seen = new Set(terms);
  if (words.length === 1) {
    for (const kin of NEGATION_EXPANSIONS[fold(words[0])] ?? []) {
      for (const term of analyze(kin)) {
        if (seen.has(term)) continue;
        seen.add(term);
        groups.push([term]);
      }
    }
  }
  return groups;
}

/** One term group per analyzed term of a word; synonyms as weaker variants and typo tolerance unless `plain` (keywords: the word itself only). */
export function groupsOf(words: string[], plain: boolean): TermGroup[] {
  const groups: TermGroup[] = [];
  const seen = new Set<string>();
  for (const word of words) {
    for (const term of analyze(word)) {
      if (seen.has(term)) continue;
      seen.add(term);
      const variants = [{ term, weight: 1 }];
      if (!plain) for (const synonym of synonymsOf(term)) variants.push({ term: synonym, weight: SYNONYM_WEIGHT });
      groups.push({ variants, maxTypos: plain ? 0 : typoBudget(word) });
    }
  }
  return groups;
}

/** Words as a shopper typed them: lower case, folded, split on anything but letters, digits, ' and -. */
function wordsOf(text: string): string[] {
  return fold(text)
    .replace(/&/g, ' and ')
    .split(/[^\p{L}\p{N}'-]+/u)
    .map((w) =>
      w
        .replace(/^'+|['-]+$/g, '')
        .replace(/'s$/, 's')
        .replace(/'/g, ''),
    )
    .filter((w) => w && w !== '-');
}

/** Keyword mode: the words as typed, no understanding. */
export function keywordsOnly(query: string): Understanding {
  const words = wordsOf(query);
  return {
    understood: { terms: words, colours: [], notColours: [], excluded: [], brands: [] },
    groups: groupsOf(words, true),
    exclude: [],
    inStock: false,
    value: false,
  };
}

/** A name the catalog carries mostly as a brand is a filter; one mostly used as a word only boosts. */
const BRAND_FILTER_SHARE = 0.5;

/** "in stock", "available": the words without the phrase, and whether it was there. */
function readStock(words: string[]): { words: string[]; inStock: boolean } {
  const stock =
    /\b(?:(?:is |are )?not (?:sold out|out of stock)|in stock|in-stock|instock|available now|ready to ship|available)\b/;
  if (!stock.test(words.join(' '))) return { words, inStock: false };
  return { words: wordsOf(words.join(' ').replace(stock, ' ')), inStock: true };
}

/**
 * Negations: "not black", "without a hood", "-leather", "leather-free", "no plastic or glass",
 * "not by Tallon", "not for kids". A negated colour becomes a colour to avoid, a negated
 * audience word an audience to avoid, anything else an excluded phrase; `kept` are the words no
 * negation took.
 */
async function readNegations(
  words: string[],
): Promise<{ kept: string[]; notColours: string[]; excluded: string[]; notAudience: string[] }> {
  const notColours: string[] = [];
  const excluded: string[] = [];
  const notAudience: string[] = [];
  const kept: string[] = [];
  let carried = false;
  for (let i = 0; i < words.length; i++) {
    let word = words[i];
    let negated = false;
    let bare = false;
    if (carried || (NEGATIONS.has(word) && !(word === 'no' && NO_COMPOUNDS.has(words[i + 1] ?? '')))) {
      negated = true;
      if (!carried || NEGATIONS.has(word)) {
        while (i + 1 < words.length && NEGATION_LEADS.has(words[i + 1])) i++;
        word = words[++i];
      }
      if (word === undefined) break;
    } else if (word.startsWith('-') && word.length > 1) {
      negated = bare = true;
      word = word.slice(1);
    } else if (/^[\p{L}]{3,}-free$/u.test(word)) {
      negated = bare = true;
      word = word.slice(0, -'-free'.length);
    }
    carried = false;
    if (!negated) {
      kept.push(word);
      continue;
    }
    // "no plastic or glass": the negation carries over "or" / "nor" to the next thing.
    const carry = () => {
      if (!bare && (words[i + 1] === 'or' || words[i + 1] === 'nor')) {
        i++;
        carried = true;
      }
    };
    const audience = GENDER[word.replace(/-/g, '')];
    if (audience) {
      notAudience.push(word.replace(/-/g, ''));
      carry();
      continue;
    }
    // "not light blue", "not jet black": a shade or colour name before a colour word belongs to it.
    if (i + 1 < words.length && (await colourOf(words[i + 1])) && (SHADES.has(word) || (await colourModifier(word))))
      word = words[++i];
    const family = await colourOf(word);
    if (family) {
      if (!notColours.includes(family)) notColours.push(family);
      carry();
      continue;
    }
    if (FILLER.has(word)) continue;
    // "without glass beads", "without c wire": the negated thing may be a phrase (up to three
    // words, ending at a filler word or another negation); a product is dropped only when it has all of it.
    const phrase = [word];
    if (!bare) {
      while (
        phrase.length < 3 &&
        i + 1 < words.length &&
        !FILLER.has(words[i + 1]) &&
        !NEGATIONS.has(words[i + 1]) &&
        !words[i + 1].startsWith('-')
      ) {
        if (await colourOf(words[i + 1])) break;
        phrase.push(words[++i]);
      }
    }
    excluded.push(phrase.join(' '));
    carry();
  }
  return { kept, notColours, excluded, notAudience };
}

/**
 * Who the products may be for: a stated gender (and for women or men, grown-ups), a stated age
 * group (a child's one must be known on the product), less any audience the query rules out.
 */
function audienceFilter(
  gender: string | undefined,
  ageGroup: string | undefined,
  notAudience: string[],
): Pick<Understanding, 'genders' | 'ageGroups' | 'ageKnown'> {
  let genders = gender ? GENDERS_ALLOWED[gender] : undefined;
  let ages = ageGroup ? AGES_ALLOWED[ageGroup] : gender === 'women' || gender === 'men' ? ['adult'] : undefined;
  for (const word of notAudience) {
    const { gender: g, age } = GENDER[word];
    if (g && g !== 'unisex') genders = (genders ?? ALL_GENDERS).filter((x) => x !== g);
    if (age) ages = (ages ?? ALL_AGES).filter((x) => !AGES_ALLOWED[age]?.includes(x) && x !== age);
  }
  return {
    ...(genders ? { genders } : {}),
    ...(ages ? { ageGroups: ages } : {}),
    ...(ageGroup && ageGroup !== 'adult' ? { ageKnown: true } : {}),
  };
}

/** Gender and age group: the first word naming each wins; every such word leaves the text. */
function readAudience(words: string[]): { words: string[]; gender?: string; ageGroup?: string } {
  let gender: string | undefined;
  let ageGroup: string | undefined;
  const rest = words.filter((word) => {
    const found = GENDER[word.replace(/-/g, '')];
    if (!found) return true;
    gender ??= found.gender;
    ageGroup ??= found.age;
    return false;
  });
  return { words: rest, gender, ageGroup };
}

/**
 * Brands the catalog knows, longest phrase first ("oak and ash" before "oak"): they leave the
 * text. A name that is mostly an ordinary word in this catalog ("apple" among apple-green
 * things) stays a word and only boosts its brand.
 */
function readBrands(
  words: string[],
  catalog: { brandShare(normalised: string): number },
): { words: string[]; brands: string[]; brandBoosts: string[] } {
  const brands: string[] = [];
  const brandBoosts: string[] = [];
  for (let size = Math.min(4, words.length); size >= 1; size--) {
    for (let i = 0; i + size <= words.length; i++) {
      const phrase = normalise(words.slice(i, i + size).join(' '));
      if (!phrase || FILLER.has(phrase) || phrase.length < 2 || /^\d+$/.test(phrase)) continue;
      const share = catalog.brandShare(phrase);
      if (share <= 0) continue;
      if (share < BRAND_FILTER_SHARE) {
        if (!brandBoosts.includes(phrase)) brandBoosts.push(phrase);
        continue;
      }
      brands.push(phrase);
      words = [...words.slice(0, i), ...words.slice(i + size)];
      i--;
    }
  }
  return { words, brands, brandBoosts };
}

/**
 * Colours, soft, so they leave the required text (`rest`), as do value words ("cheap") and
 * fillers. Colour words that are as often things ("wine glasses", "rose bush"; "olive oil" is
 * safe only because olive names no product here) are `ambiguous`: they boost the colour gently
 * and stay as words that score where they occur, neither required nor removed.
 */
async function readColours(words: string[]): Promise<{
  colours: string[];
  rest: string[];
  ambiguous: string[];
  firmColour: boolean;
  value: boolean;
}> {
  const colours: string[] = [];
  const rest: string[] = [];
  const ambiguous: string[] = [];
  let firmColour = false;
  let value = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    const family = await colourOf(word);
    if (family) {
      if (!colours.includes(family)) colours.push(family);
      if (
        isColourWord(fold(word)) ||
        SHADES.has(rest[rest.length - 1] ?? '') ||
        (i + 1 < words.length && (await colourOf(words[i + 1])))
      )
        firmColour = true;
      else ambiguous.push(word);
      // "light blue", "jet black": the shade or colour name before it goes with it.
      const before = rest[rest.length - 1];
      if (before && (SHADES.has(before) || (await colourModifier(before)))) rest.pop();
      continue;
    }
    if (VALUE_WORDS.has(word)) {
      value = true;
      continue;
    }
    if (FILLER.has(word)) continue;
    rest.push(word);
  }
  return { colours, rest, ambiguous, firmColour, value };
}

/**
 * A query read facet by facet, each taking its words out of the text before the next looks:
 * price, stock, negations, gender and age, brands, colours; the taxonomy category of what is left.
 */
export async function understand(
  query: string,
  catalog: { brandShare(normalised: string): number },
): Promise<Understanding> {
  const { text, price } = readPrice(
    fold(query)
      .replace(/[“”"]/g, ' ')
      .replace(/\bw\/o\b/g, 'without'),
  );
  const { words: afterStock, inStock } = readStock(wordsOf(text));
  const { kept, notColours, excluded, notAudience } = await readNegations(afterStock);
  const { words: afterAudience, gender, ageGroup } = readAudience(kept);
  const audience = audienceFilter(gender, ageGroup, notAudience);
  const { words: afterBrands, brands, brandBoosts } = readBrands(afterAudience, catalog);
  const { colours, rest, ambiguous, firmColour, value } = await readColours(afterBrands);

  const category = rest.length
    ? await matchTaxonomy({
        title: rest.join(' '),
        description: null,
        tags: [],
        storeProductType: null,
        breadcrumbs: [],
      })
    : null;

  return {
    understood: {
      terms: rest,
      ...(price ? { price } : {}),
      colours,
      notColours,
      excluded,
      ...(gender ? { gender } : {}),
      ...(ageGroup ? { ageGroup } : {}),
      brands,
      ...(category ? { category: { id: category.id, path: category.path } } : {}),
    },
    groups: groupsOf(rest, false),
    exclude: excluded.flatMap(excludeGroupsOf),
    ...audience,
    inStock,
    value,
    ...(brandBoosts.length ? { brandBoosts } : {}),
    ...(ambiguous.length ? { optional: ambiguous } : {}),
    ...(colours.length ? { colourStrength: firmColour ? ('firm' as const) : ('gentle' as const) } : {}),
  };
}

/** Taxonomy ids in the index carry no gid prefix. */
export const bareCategoryId = (id: string) => id.replace(TAXONOMY_GID_PREFIX, '');
