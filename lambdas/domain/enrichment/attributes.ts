// Attribute readers: each looks for what the store wrote (option values, title, tags, breadcrumbs,
// description) and returns Shopify's attribute vocabulary in lower case, or null when nothing says.
import { fold, singular } from './text';

export interface AttributeSource {
  title: string | null;
  description: string | null;
  tags: string[];
  storeProductType: string | null;
  options: Record<string, string[]>;
  breadcrumbs: string[];
}

// ---------------------------------------------------------------------------------------------
// Material. Canonical names follow Shopify's material attribute values.

const MATERIALS: [string, string][] = [
  ['organic cotton', 'cotton'],
  ['cotton', 'cotton'],
  ['baumwolle', 'cotton'],
  ['coton', 'cotton'],
  ['algodon', 'cotton'],
  ['algodao', 'cotton'],
  ['cotone', 'cotton'],
  ['katoen', 'cotton'],
  ['bawelna', 'cotton'],
  ['merino wool', 'merino'],
  ['merino', 'merino'],
  ['lambswool', 'wool'],
  ['wool', 'wool'],
  ['wolle', 'wool'],
  ['laine', 'wool'],
  ['lana', 'wool'],
  ['wol', 'wool'],
  ['cashmere', 'cashmere'],
  ['kaschmir', 'cashmere'],
  ['cachemire', 'cashmere'],
  ['mohair', 'mohair'],
  ['angora', 'angora'],
  ['alpaca', 'wool'],
  ['silk', 'silk'],
  ['seide', 'silk'],
  ['soie', 'silk'],
  ['seda', 'silk'],
  ['seta', 'silk'],
  ['zijde', 'silk'],
  ['linen', 'linen'],
  ['leinen', 'linen'],
  ['lin', 'linen'],
  ['lino', 'linen'],
  ['linho', 'linen'],
  ['flax', 'linen'],
  ['recycled polyester', 'polyester'],
  ['polyester', 'polyester'],
  ['poliester', 'polyester'],
  ['polyamide', 'nylon'],
  ['polyamid', 'nylon'],
  ['nylon', 'nylon'],
  ['elastane', 'lycra'],
  ['elasthan', 'lycra'],
  ['spandex', 'lycra'],
  ['lycra', 'lycra'],
  ['viscose', 'viscose'],
  ['viskose', 'viscose'],
  ['rayon', 'rayon'],
  ['modal', 'modal'],
  ['lyocell', 'lyocell'],
  ['tencel', 'lyocell'],
  ['acrylic', 'acrylic'],
  ['acryl', 'acrylic'],
  ['hemp', 'hemp'],
  ['jute', 'jute'],
  ['faux leather', 'faux leather'],
  ['vegan leather', 'faux leather'],
  ['pu leather', 'faux leather'],
  ['leatherette', 'faux leather'],
  ['genuine leather', 'leather'],
  ['full grain leather', 'leather'],
  ['leather', 'leather'],
  ['leder', 'leather'],
  ['cuir', 'leather'],
  ['cuero', 'leather'],
  ['pelle', 'leather'],
  ['couro', 'leather'],
  ['suede', 'suede'],
  ['wildleder', 'suede'],
  ['nubuck', 'suede'],
  ['faux fur', 'faux fur'],
  ['fur', 'fur'],
  ['denim', 'denim'],
  ['fleece', 'fleece'],
  ['sherpa', 'sherpa'],
  ['velvet', 'velvet'],
  ['samt', 'velvet'],
  ['velour', 'velour'],
  ['satin', 'satin'],
  ['corduroy', 'corduroy'],
  ['cord', 'corduroy'],
  ['tweed', 'tweed'],
  ['twill', 'twill'],
  ['flannel', 'flannel'],
  ['canvas', 'canvas'],
  ['mesh', 'mesh'],
  ['neoprene', 'neoprene'],
  ['terrycloth', 'terrycloth'],
  ['felt', 'felt'],
  ['rubber', 'rubber'],
  ['silicone', 'silicone'],
  ['latex', 'latex'],
  ['stainless steel', 'stainless steel'],
  ['edelstahl', 'stainless steel'],
  ['aluminum', 'aluminum'],
  ['aluminium', 'aluminum'],
  ['brass', 'brass'],
  ['bronze', 'bronze'],
  ['copper', 'copper'],
  ['iron', 'iron'],
  ['steel', 'metal'],
  ['metal', 'metal'],
  ['titanium', 'metal'],
  ['sterling silver', 'silver'],
  ['solid gold', 'gold'],
  ['bamboo', 'bamboo'],
  ['rattan', 'rattan'],
  ['wicker', 'rattan'],
  ['cork', 'cork'],
  ['plywood', 'plywood'],
  ['mdf', 'medium density fiberboard mdf'],
  ['solid wood', 'wood'],
  ['oak', 'wood'],
  ['walnut', 'wood'],
  ['pine', 'wood'],
  ['beech', 'wood'],
  ['teak', 'wood'],
  ['acacia', 'wood'],
  ['wood', 'wood'],
  ['wooden', 'wood'],
  ['holz', 'wood'],
  ['massivholz', 'wood'],
  ['glass', 'glass'],
  ['ceramic', 'ceramic'],
  ['stoneware', 'ceramic'],
  ['porcelain', 'porcelain'],
  ['marble', 'marble'],
  ['concrete', 'concrete'],
  ['resin', 'resin'],
  ['plastic', 'plastic'],
  ['polypropylene', 'polypropylene pp'],
  ['polyethylene', 'polyethylene pe'],
  ['polyurethane', 'polyurethane pu'],
  ['pvc', 'polyvinyl chloride pvc'],
  ['vinyl', 'vinyl'],
  ['carbon fiber', 'carbon'],
  ['fiberglass', 'fiberglass'],
  ['paper', 'paper'],
  ['cardboard', 'cardboard'],
];

const MATERIAL_BY_PHRASE = new Map(MATERIALS.map(([phrase, canonical]) => [phrase, canonical]));
const MATERIAL_WORDS = new Set(
  MATERIALS.filter(
    ([phrase]) =>
      !phrase.includes(' ') && phrase.length > 3 && !['cord', 'felt', 'iron', 'pine', 'fur'].includes(phrase),
  ).map(([phrase]) => singular(phrase)),
);

/** True for a word that names a material (used to keep "Leather Bag" out of the leather category). */
export function isMaterialWord(token: string): boolean {
  return MATERIAL_WORDS.has(token);
}

const MATERIAL_PHRASES = [...MATERIAL_BY_PHRASE.keys()].sort((a, b) => b.length - a.length);
const MATERIAL_PATTERN = new RegExp(
  `\\b(?:${MATERIAL_PHRASES.map((p) => p.replace(/ /g, '[\\s-]')).join('|')})\\b`,
  'g',
);

interface MaterialHit {
  canonical: string;
  share: number | null;
  index: number;
}

function materialHits(text: string): MaterialHit[] {
  const folded = fold(text);
  const hits: MaterialHit[] = [];
  MATERIAL_PATTERN.lastIndex = 0;
  for (let m = MATERIAL_PATTERN.exec(folded), n = 0; m && n < 50; m = MATERIAL_PATTERN.exec(folded), n++) {
    const canonical = MATERIAL_BY_PHRASE.get(m[0].replace(/[\s-]/g, ' '));
    if (!canonical) continue;
    // "60% cotton" or "cotton 60%".
    const before = /(\d{1,3}(?:[.,]\d+)?)\s?%\s*$/.exec(folded.slice(Math.max(0, m.index - 8), m.index));
    const after = /^\s*(\d{1,3}(?:[.,]\d+)?)\s?%/.exec(folded.slice(m.index + m[0].length, m.index + m[0].length + 8));
    const raw = before?.[1] ?? after?.[1];
    hits.push({ canonical, share: raw ? Number(raw.replace(',', '.')) : null, index: m.index });
  }
  return hits;
}

const MATERIAL_OPTION =
  /^(?:material|materials|fabric|composition|stoff|material(?:ien)?|matiere|matière|tejido|materiale|materiaal)$/i;
const MATERIAL_LINE =
  /(?:^|\n|\.\s|•|;)\s*(?:materials?|fabric|composition|shell|outer|upper|main fabric|obermaterial|material|matière|composición|composizione)\s*[:\-–]\s*([^\n.;•]{2,120})/i;

export function readMaterial(src: AttributeSource): { primary: string | null; merchant_label: string | null } | null {
  const candidates: string[] = [];
  for (const [name, values] of Object.entries(src.options))
    if (MATERIAL_OPTION.test(name.trim())) candidates.push(...values.slice(0, 1));
  const stated = src.description ? MATERIAL_LINE.exec(src.description)?.[1] : undefined;
  if (stated) candidates.push(stated.trim());
  for (const tag of src.tags)
    if (/^(?:material|fabric)\s*[:_-]/i.test(tag)) candidates.push(tag.replace(/^[^:_-]+[:_-]\s*/, ''));
  for (const text of candidates) {
    const hits = materialHits(text);
    if (hits.length) return { primary: primaryOf(hits), merchant_label: text.replace(/\s+/g, ' ').trim() };
  }
  // The title names the material of the product itself: "Cotton Crew Neck T-Shirt".
  for (const text of [src.title ?? '', src.tags.join(' , ')]) {
    const hits = materialHits(text);
    if (hits.length) {
      const folded = fold(text);
      const first = hits[0];
      const phrase =
        MATERIAL_PHRASES.find((p) => folded.slice(first.index).replace(/-/g, ' ').startsWith(p)) ?? first.canonical;
      return { primary: primaryOf(hits), merchant_label: original(text, first.index, phrase.length) };
    }
  }
  // A blend stated in the description ("60% cotton, 40% polyester") with no label before it.
  if (src.description) {
    const hits = materialHits(src.description.slice(0, 3000)).filter((h) => h.share !== null);
    if (hits.length) {
      const blend = /(?:\d{1,3}\s?%\s*[\p{L} -]{3,30}[,/ ]*){1,6}|(?:[\p{L} -]{3,30}\s\d{1,3}\s?%[,/ ]*){1,6}/u.exec(
        src.description,
      );
      return { primary: primaryOf(hits), merchant_label: blend ? blend[0].replace(/[,/ ]+$/, '').trim() : null };
    }
  }
  return null;
}

function primaryOf(hits: MaterialHit[]): string {
  const withShare = hits.filter((h) => h.share !== null);
  if (withShare.length) return withShare.reduce((a, b) => ((b.share ?? 0) > (a.share ?? 0) ? b : a)).canonical;
  return hits[0].canonical;
}

/** The text as written at a position of its folded form (folding keeps lengths for Latin text). */
function original(text: string, index: number, length: number): string {
  const slice = text.slice(index, index + length);
  return fold(slice).length === length ? slice : fold(text).slice(index, index + length);
}

// ---------------------------------------------------------------------------------------------
// Gender and age group.

const GENDER_WORDS: [RegExp, 'women' | 'men' | 'unisex' | 'girls' | 'boys'][] = [
  [/\bunisex\b/, 'unisex'],
  [/\b(?:girls?|girl's|girls'|madchen|fille|filles|nina|ninas|bambina|menina|meisjes)\b/, 'girls'],
  [/\b(?:boys?|boy's|boys'|jungen|garcon|garcons|nino|ninos|bambino|menino|jongens)\b/, 'boys'],
  [
    /\b(?:women|woman|women's|womens|ladies|lady|female|damen|dames|femme|femmes|mujer|mujeres|donna|donne|mulher|feminino|feminina|her)\b/,
    'women',
  ],
  [/\b(?:men|men's|mens|gents|male|herren|heren|homme|hommes|hombre|hombres|uomo|homem|masculino|him)\b/, 'men'],
];

function genderIn(text: string): Set<string> {
  const folded = fold(text);
  const found = new Set<string>();
  for (const [pattern, gender] of GENDER_WORDS) if (pattern.test(folded)) found.add(gender);
  return found;
}

export function readGender(src: AttributeSource): string | null {
  const strong = [src.title, src.storeProductType, ...src.breadcrumbs].filter(Boolean).join(' | ');
  for (const text of [strong, src.tags.join(' | ')]) {
    const found = genderIn(text);
    if (!found.size) continue;
    if (found.has('unisex') || (found.has('women') && found.has('men'))) return 'unisex';
    if (found.has('girls') && found.has('boys')) return 'unisex';
    for (const g of ['girls', 'boys', 'women', 'men']) if (found.has(g)) return g;
  }
  return null;
}

const AGE_WORDS: [RegExp, string][] = [
  [/\b(?:baby|babies|infant|infants|newborn|newborns|bebe|neonato|0-\d+\s?m(?:onths)?|\d+-\d+\s?months)\b/, 'baby'],
  [/\b(?:toddler|toddlers|kleinkind)\b/, 'kids'],
  [/\b(?:teen|teens|teenager|teenagers|adolescent)\b/, 'teen'],
  [
    /\b(?:kid|kids|kid's|kids'|child|children|children's|junior|juniors|youth|kinder|enfant|enfants|infantil|nino|nina|bambini|girls?|boys?)\b/,
    'kids',
  ],
];

export function readAgeGroup(src: AttributeSource, gender: string | null): string | null {
  const text = fold([src.title, src.storeProductType, ...src.breadcrumbs, ...src.tags].filter(Boolean).join(' | '));
  for (const [pattern, group] of AGE_WORDS) if (pattern.test(text)) return group;
  if (gender === 'women' || gender === 'men') return 'adult';
  if (/\b(?:adult|adults|erwachsene)\b/.test(text)) return 'adult';
  return null;
}

// ---------------------------------------------------------------------------------------------
// Season, pattern, closure, care.

export function readSeasons(src: AttributeSource): string[] | null {
  const text = fold(
    [src.title, ...src.tags, src.storeProductType, ...src.breadcrumbs, src.description?.slice(0, 1500)]
      .filter(Boolean)
      .join(' | '),
  );
  const seasons = new Set<string>();
  if (/\ball[\s-]?(?:season|weather|year)\b|\b4[\s-]season\b|\bganzjahres/.test(text))
    return ['spring', 'summer', 'autumn', 'winter'];
  if (/\b(?:spring|fruhling|printemps|primavera)\b/.test(text)) seasons.add('spring');
  if (/\b(?:summer|sommer|ete|verano|estate|verao)\b/.test(text)) seasons.add('summer');
  // "fall" is a verb too: only as a season next to another season word or a collection year.
  if (
    /\b(?:autumn|herbst|automne|otono|autunno)\b|\bfall(?:\s*\/\s*winter|\s+(?:collection|season|20\d\d))\b|\b(?:aw|fw)\s?\d{2}\b/.test(
      text,
    )
  )
    seasons.add('autumn');
  if (/\b(?:winter|hiver|invierno|inverno)\b|\b(?:aw|fw)\s?\d{2}\b/.test(text)) seasons.add('winter');
  if (/\bss\s?\d{2}\b/.test(text)) {
    seasons.add('spring');
    seasons.add('summer');
  }
  const order = ['spring', 'summer', 'autumn', 'winter'];
  return seasons.size ? order.filter((s) => seasons.has(s)) : null;
}

const PATTERNS: [RegExp, string][] = [
  [
    /\b(?:stripe|stripes|striped|stripy|pinstripe|breton|gestreift|rayure|rayures|raye|rayee|rayas|righe|a righe)\b/,
    'striped',
  ],
  [/\b(?:floral|flower print|flowers|florals|blumen|fleuri|fleurs|flores|fiori)\b/, 'floral'],
  [/\b(?:plaid|tartan|flannel check)\b/, 'plaid'],
  [/\b(?:gingham|check|checked|checkered|chequered|houndstooth|kariert|carreaux|cuadros|quadri)\b/, 'checkered'],
  [/\b(?:polka dot|polka dots|polka-dot|dotted|spotted|dots|pois|lunares|punkte)\b/, 'dots'],
  [/\b(?:leopard|zebra|snake print|snakeskin|animal print|tiger print|cheetah)\b/, 'animal'],
  [/\b(?:camo|camouflage)\b/, 'camouflage'],
  [/\b(?:paisley)\b/, 'paisley'],
  [/\b(?:tie[\s-]dye|tie[\s-]dyed)\b/, 'tie dye'],
  [/\b(?:geometric|geo print)\b/, 'geometric'],
  [/\b(?:chevron|zigzag|zig-zag)\b/, 'chevron'],
  [/\b(?:abstract)\b/, 'abstract'],
  [/\b(?:logo|logo print|monogram)\b/, 'logo'],
  [/\b(?:solid|plain|uni|unifarben|einfarbig|liso)\b/, 'solid'],
];

export function readPattern(src: AttributeSource): string | null {
  const optionText = Object.entries(src.options)
    .filter(([name]) => /pattern|print|muster|motif/i.test(name))
    .flatMap(([, v]) => v.slice(0, 1));
  for (const text of [
    optionText.join(' '),
    [src.title, ...src.tags].filter(Boolean).join(' | '),
    src.description?.slice(0, 800) ?? '',
  ]) {
    const folded = fold(text);
    for (const [pattern, name] of PATTERNS) {
      // "plain" and "uni" are too common in prose to trust outside the title, tags and options.
      if (name === 'solid' && text === src.description?.slice(0, 800)) continue;
      if (pattern.test(folded)) return name;
    }
  }
  return null;
}

const CLOSURES: [RegExp, string][] = [
  [
    /\b(?:zip|zipper|zipped|zip-up|zip up|full-zip|half-zip|quarter-zip|reissverschluss|fermeture eclair|cremallera)\b/,
    'zipper',
  ],
  [/\b(?:button|buttons|buttoned|button-up|button-down|button down|knopfe|knopfleiste|boutons)\b/, 'buttons'],
  [/\b(?:lace-up|lace up|laces|lace-ups|schnurung|lacets)\b/, 'lace up'],
  [/\b(?:slip-on|slip on|pull-on|pull on)\b/, 'slip on'],
  [/\b(?:velcro|hook and loop|hook-and-loop|hook & loop|klettverschluss)\b/, 'hook loop'],
  [/\b(?:drawstring|tunnelzug)\b/, 'drawstring'],
  [/\b(?:buckle|buckles|schnalle)\b/, 'buckles'],
  [/\b(?:snap|snaps|press stud|press studs|druckknopf)\b/, 'snap'],
  [/\b(?:magnetic closure|magnetic clasp|magnet)\b/, 'magnetic'],
  [/\b(?:toggle|toggles)\b/, 'toggle'],
  [/\b(?:clasp|lobster clasp)\b/, 'clasp'],
  [/\b(?:elastic waist|elasticated|elastic waistband)\b/, 'elastic'],
  [/\b(?:tie closure|self-tie|wrap tie|tie waist)\b/, 'ties'],
];

export function readClosure(src: AttributeSource): string | null {
  for (const text of [src.title ?? '', src.tags.join(' | '), src.description?.slice(0, 2000) ?? '']) {
    const folded = fold(text);
    for (const [pattern, name] of CLOSURES) if (pattern.test(folded)) return name;
  }
  return null;
}

const CARE_LINE =
  /(?:care(?:\s+instructions)?|washing instructions|pflegehinweise?|pflege|entretien|cuidados?|lavaggio)\s*[:\-–]\s*([^\n•]{4,240})/i;
const CARE_PHRASE =
  /\b(?:machine wash(?:able)?|hand wash(?:\s+only)?|dry clean(?:\s+only)?|do not (?:tumble dry|bleach|iron|wash)|tumble dry(?: low)?|wash (?:at|cold|warm)|wipe clean|spot clean)[^.\n•]{0,120}/i;

export function readCare(src: AttributeSource): string | null {
  const description = src.description ?? '';
  const line = CARE_LINE.exec(description)?.[1] ?? CARE_PHRASE.exec(description)?.[0];
  if (!line) return null;
  // "Machine wash at 30°C. Fit: Slim": the care text ends where the next "Name:" begins.
  const own = line.split(/\.\s+(?=[\p{Lu}][\p{L} ]{1,24}:)/u)[0];
  return tidy(
    own
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/[,;:]$/, ''),
    240,
  );
}

// ---------------------------------------------------------------------------------------------
// Summary, features, additional attributes.

export function readSummary(description: string | null): string | null {
  if (!description) return null;
  // The first paragraph, before any line break or bullet.
  const paragraph = description
    .split(/\n|[•·▪✓✔]/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .find((p) => p.length > 0);
  if (!paragraph) return null;
  // Its first sentence: up to a ".", "!" or "?" followed by a capital, a digit or the end.
  const match = /^(.{8,400}?[.!?])(?=\s+[\p{Lu}\d"“]|$)/u.exec(paragraph);
  return tidy(match ? match[1] : paragraph, 300);
}

function tidy(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[,;:\s]+$/, '')}…`;
}

/** The description's bullet points ("• Machine washable", "- 100% cotton"), or its short lines. */
export function readFeatures(description: string | null): string[] | null {
  if (!description) return null;
  const clean = (l: string) =>
    l
      .replace(/^[\s\-*–:]+/, '')
      .replace(/\s+/g, ' ')
      .trim();
  const keep = (l: string) =>
    l.length >= 3 && l.length <= 160 && !/^(?:features?|details?|specifications?|description)\s*:?$/i.test(l);
  let items: string[];
  if (/[•·▪✓✔]/.test(description)) {
    // The text before the first bullet is prose, not a feature.
    items = description
      .split(/[•·▪✓✔]/)
      .slice(1)
      .map((l) => clean(l.split('\n')[0]));
  } else if (/(?:^|\n)\s*[-*–]\s+\S/.test(description)) {
    items = description
      .split('\n')
      .filter((l) => /^\s*[-*–]\s+\S/.test(l))
      .map(clean);
  } else {
    const lines = description.split('\n').map(clean).filter(Boolean);
    items = lines.length >= 3 && lines.every((l) => l.length <= 100) ? lines : [];
  }
  const unique = [...new Set(items.filter(keep))];
  return unique.length >= 2 ? unique.slice(0, 12) : null;
}

/** Short "Name: value" facts of the description that no other attribute holds ("Fit: Regular"). */
export function readAdditional(src: AttributeSource, covered: Set<string>): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const text = src.description ?? '';
  const pattern = /(?:^|\n|•|;|\.\s)\s*([\p{L}][\p{L} ]{1,24}?)\s*:\s*((?:[^\n•;.]|\.(?!\s)){1,60})/gu;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text), n = 0; m && n < 40 && out.length < 10; m = pattern.exec(text), n++) {
    const name = m[1].trim();
    const value = m[2].trim().replace(/[.,]$/, '');
    const key = fold(name);
    if (covered.has(key) || seen.has(key) || !value || /^https?$/i.test(name)) continue;
    seen.add(key);
    out.push(`${name}: ${value}`);
  }
  for (const [name, values] of Object.entries(src.options)) {
    const key = fold(name);
    if (covered.has(key) || seen.has(key) || !values.length || /^(?:title|default)$/i.test(name)) continue;
    seen.add(key);
    out.push(`${name}: ${values.slice(0, 12).join(', ')}`);
  }
  return out;
}
