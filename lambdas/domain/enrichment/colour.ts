// Colour: the store's own colour word (merchant_label) and its ISCC-NBS level-1 family. A curated
// list of fashion colour words decides first; the bundled name list (xkcd/CSS names mapped to the
// nearest ISCC-NBS centroid) is the fallback for words the list lacks.
import { fold } from './text';

export type IsccFamily =
  | 'pink'
  | 'red'
  | 'orange'
  | 'brown'
  | 'yellow'
  | 'olive'
  | 'yellow green'
  | 'green'
  | 'blue'
  | 'purple'
  | 'white'
  | 'gray'
  | 'black';

const CURATED: Record<IsccFamily, string> = {
  black: 'black jet onyx ebony noir schwarz negro nero preto zwart czarny musta svart sort caviar licorice',
  white:
    'white ivory cream off-white offwhite ecru snow chalk alabaster pearl blanc weiss weiß blanco bianco branco wit bialy valkoinen vit hvid optic bone vanilla eggshell',
  gray: 'gray grey charcoal slate silver ash graphite heather pewter stone gunmetal smoke dove grau gris grigio cinza grijs szary harmaa anthracite antracite anthrazit titanium cement fog steel',
  blue: 'blue navy cobalt azure sky indigo denim sapphire royal cerulean teal-blue midnight ocean marine bleu blau azul azzurro blauw niebieski sininen bla blå marinho marino marine petrol steel-blue powder-blue baby-blue chambray ink admiral',
  green:
    'green emerald forest sage mint jade teal turquoise hunter kelly bottle aqua seafoam pine grün verde vert groen zielony vihrea grön grøn',
  'yellow green': 'lime chartreuse pistachio apple-green',
  olive: 'olive khaki-green army moss oliv oliva',
  yellow:
    'yellow mustard lemon gold golden butter canary honey saffron gelb amarillo giallo amarelo geel zolty keltainen gul jaune ochre',
  orange: 'orange tangerine apricot rust coral peach amber pumpkin naranja arancione laranja oranje pomaranczowy',
  red: 'red scarlet crimson cherry ruby brick tomato garnet cardinal rot rojo rosso vermelho rood czerwony punainen röd rød rouge vermilion burgundy wine maroon bordeaux berry mulberry claret oxblood',
  pink: 'pink mauve rose blush fuchsia magenta salmon raspberry bubblegum rosa roze rozowy pinkki rosé dusty-pink hot-pink',
  purple:
    'purple violet lavender lilac plum aubergine eggplant amethyst orchid grape lila viola roxo paars fioletowy violetti',
  brown:
    'brown tan camel chocolate coffee mocha espresso cognac caramel chestnut walnut beige taupe khaki sand nude bronze copper tobacco umber sepia toffee hazel mahogany brun braun marron marrone marrom bruin brazowy ruskea oak natural',
};

// Words a store uses that name no single colour: kept as the label, with no family.
const NO_FAMILY = new Set([
  'multi',
  'multicolor',
  'multicolour',
  'multi-color',
  'multi-coloured',
  'multicoloured',
  'assorted',
  'mixed',
  'print',
  'printed',
  'pattern',
  'clear',
  'transparent',
  'rainbow',
]);

let curatedIndex: Map<string, IsccFamily> | null = null;

function curated(): Map<string, IsccFamily> {
  if (curatedIndex) return curatedIndex;
  curatedIndex = new Map();
  for (const [family, words] of Object.entries(CURATED) as [IsccFamily, string][]) {
    for (const word of words.split(' ')) {
      const key = fold(word).replace(/-/g, ' ');
      if (!curatedIndex.has(key)) curatedIndex.set(key, family);
    }
  }
  return curatedIndex;
}

let fallbackLoading: Promise<Map<string, IsccFamily>> | null = null;

function fallbackNames(): Promise<Map<string, IsccFamily>> {
  fallbackLoading ??= import('./data/colors.json', { with: { type: 'json' } }).then((module) => {
    const { colors } = (module as { default: { colors: Record<string, IsccFamily> } }).default;
    return new Map(Object.entries(colors).map(([name, family]) => [fold(name), family]));
  });
  return fallbackLoading;
}

// Curated colour words that are more often something else in a title or tag: foods, materials,
// gems, English words ("sort", "rot", "wit"), so a title or tag never yields them as a colour.
const NOT_IN_TITLES = new Set(
  (
    'natural oak stone steel bone ink admiral marine ocean royal sky midnight hunter kelly bottle forest honey butter ' +
    'coffee chocolate wine cherry tomato brick lemon salmon peach plum grape berry mulberry pumpkin caramel toffee mocha ' +
    'espresso tobacco copper bronze gold golden silver sand nude cement fog smoke ash chalk snow vanilla jet caviar licorice ' +
    'cardinal ruby garnet emerald sapphire jade amber mint sage pine moss army rust rose blush cream denim camel tan pearl ' +
    'wit sort rot bla vit gul optic walnut mahogany hazel chestnut apricot tangerine orchid amethyst cognac claret ' +
    'petrol powder azure eggshell dove titanium graphite slate heather pewter canary saffron ochre lime pistachio apple ' +
    'grau uni'
  ).split(' '),
);

/** True when a title or tag word is a colour (used for colour labels and to keep colours out of category matching). */
export function isColourWord(word: string): boolean {
  const key = fold(word);
  return curated().has(key) && !NOT_IN_TITLES.has(key);
}

const SHADE = new Set([
  'light',
  'dark',
  'pale',
  'deep',
  'bright',
  'dusty',
  'soft',
  'navy',
  'baby',
  'hot',
  'neon',
  'off',
  'royal',
  'sky',
  'steel',
  'powder',
  'midnight',
  'forest',
  'olive',
  'rose',
  'mint',
  'hell',
  'dunkel',
  'clair',
  'fonce',
  'scuro',
  'chiaro',
  'oscuro',
  'claro',
]);

/** The first colour named in a title or tag text, as written, with a shade word before it ("Dark Green"). */
export function findColourLabel(text: string): string | null {
  const words = text.split(/[^\p{L}'-]+/u).filter(Boolean);
  for (let i = 0; i < words.length && i < 80; i++) {
    if (!isColourWord(words[i])) continue;
    const shade = i > 0 && SHADE.has(fold(words[i - 1])) ? `${words[i - 1]} ` : '';
    const next = words[i + 1] && isColourWord(words[i + 1]) && SHADE.has(fold(words[i])) ? ` ${words[i + 1]}` : '';
    return `${shade}${words[i]}${next}`;
  }
  return null;
}

/**
 * The family of a colour label: "Navy" -> blue, "Dusty Rose" -> pink, "Black/White" -> black
 * (the first colour named). null when no word of the label is a known colour.
 */
export async function colourFamily(label: string): Promise<IsccFamily | null> {
  const folded = fold(label)
    .replace(/[^\p{L}\s/&,+-]/gu, ' ')
    .trim();
  if (!folded) return null;
  const names = curated();
  const fallback = await fallbackNames();
  // "black/white", "navy & red": the first colour named leads.
  for (const part of folded.split(/\s*[/&,+]\s*|\s+and\s+|\s+-\s+/)) {
    const phrase = part.trim().replace(/-/g, ' ');
    if (!phrase) continue;
    const exact = names.get(phrase) ?? fallback.get(phrase) ?? fallback.get(phrase.replace(/\s+/g, ''));
    if (exact) return exact;
    // "dusty rose", "light heather grey": the last colour word is the hue, earlier ones modify it.
    const words = phrase.split(/\s+/);
    for (let i = words.length - 1; i >= 0; i--) {
      const family = names.get(words[i]) ?? (words[i].length > 3 ? fallback.get(words[i]) : undefined);
      if (family) return family;
    }
    // Compounds: "Dunkelblau", "Hellgrau", "Marineblau" end in their hue.
    for (let i = words.length - 1; i >= 0; i--) {
      for (const [name, family] of names)
        if (name.length >= 3 && words[i].length > name.length + 2 && words[i].endsWith(name)) return family;
    }
  }
  return null;
}

export function namesNoFamily(label: string): boolean {
  return NO_FAMILY.has(fold(label).trim());
}
