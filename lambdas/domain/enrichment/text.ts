// Word normalisation shared by the taxonomy matcher and the attribute readers: one spelling per
// word, so "T-Shirts", "t shirt" and "tee" meet, as do "Moisturiser" and "Moisturizers".

const BRITISH: Record<string, string> = {
  colour: 'color',
  grey: 'gray',
  jewellery: 'jewelry',
  aluminium: 'aluminum',
  duffle: 'duffel',
  pyjama: 'pajama',
  pyjamas: 'pajamas',
  tyre: 'tire',
  tyres: 'tires',
  trainers: 'sneakers',
  trainer: 'sneaker',
  jumper: 'sweater',
  jumpers: 'sweaters',
  hoody: 'hoodie',
  tee: 'tshirt',
  tees: 'tshirts',
  couch: 'sofa',
  couches: 'sofas',
  cellphone: 'phone',
  smartphone: 'phone',
  smartphones: 'phones',
  mobile: 'mobile',
  cot: 'crib',
  cots: 'cribs',
  nappy: 'diaper',
  nappies: 'diapers',
  torch: 'flashlight',
  torches: 'flashlights',
  hob: 'cooktop',
  moisturiser: 'moisturizer',
  moisturisers: 'moisturizers',
  sweatpant: 'sweatpants',
  plushie: 'plush',
  plushies: 'plush',
  tv: 'television',
  tvs: 'televisions',
  telly: 'television',
};

const STOPWORDS = new Set(
  'a an and or the of for with in on to by from at as is are be this that it its your our my you we new & + - x'.split(
    ' ',
  ),
);

/** Lower case, no diacritics, one space between words. */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[’`´]/g, "'");
}

const IRREGULAR: Record<string, string> = {
  shelves: 'shelf',
  knives: 'knife',
  leaves: 'leaf',
  halves: 'half',
  wolves: 'wolf',
  scarves: 'scarf',
  loaves: 'loaf',
  calves: 'calf',
  women: 'woman',
  men: 'man',
  children: 'child',
  feet: 'foot',
  teeth: 'tooth',
  mice: 'mouse',
  geese: 'goose',
  people: 'person',
  dice: 'die',
  shoes: 'shoe',
  canoes: 'canoe',
  toes: 'toe',
  pants: 'pants',
  jeans: 'jeans',
  shorts: 'shorts',
  leggings: 'leggings',
  tights: 'tights',
  trousers: 'trousers',
  glasses: 'glasses',
  sunglasses: 'sunglasses',
  scissors: 'scissors',
  sweatpants: 'sweatpants',
  pajamas: 'pajamas',
  briefs: 'briefs',
  boxers: 'boxers',
  overalls: 'overalls',
  goggles: 'goggles',
  headphones: 'headphone',
  earrings: 'earring',
  clothes: 'clothing',
  series: 'series',
  species: 'species',
  news: 'news',
  chaps: 'chaps',
};

/** A crude English singular: both sides of every comparison go through it, so it only has to be consistent. */
export function singular(word: string): string {
  const irregular = IRREGULAR[word];
  if (irregular) return irregular;
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('ie')) return `${word.slice(0, -2)}y`;
  if (/(?:ss|sh|ch|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('oes')) return word.slice(0, -2);
  if (/(?:ss|us|is|ous|ics)$/.test(word)) return word;
  if (word.endsWith('s')) return word.slice(0, -1);
  return word;
}

/** Normalised word tokens in order; stopwords dropped. */
export function tokens(text: string | null | undefined): string[] {
  if (!text) return [];
  const folded = fold(text)
    // "t-shirt", "t shirt", "v-neck": a one-letter prefix joins its word.
    .replace(/\b([a-z])[-\s](shirts?|neck|ray|book|reader|bike|bikes|cigarettes?|line)\b/g, '$1$2')
    .replace(/\b([a-z])-([a-z]{2,})\b/g, '$1$2');
  const out: string[] = [];
  for (const raw of folded.split(/[^\p{L}\p{N}]+/u)) {
    if (!raw || STOPWORDS.has(raw)) continue;
    const word = raw.endsWith("'s") ? raw.slice(0, -2) : raw;
    const spelled = BRITISH[word] ?? word;
    for (const w of spelled.split(' ')) out.push(singular(w));
    if (out.length > 400) break;
  }
  return out;
}

/** Splits a product title into its head part and the qualifiers after " with ", " for ", "(" or " - ". */
export function titleParts(title: string): { head: string; rest: string } {
  const match = /\s(?:with|for|w\/|incl\.?|including|inkl\.?|mit|avec|con|para|pour|für)\s/i.exec(title);
  if (!match || match.index < 3) return { head: title, rest: '' };
  return { head: title.slice(0, match.index), rest: title.slice(match.index) };
}
