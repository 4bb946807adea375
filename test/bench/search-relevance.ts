// `npm run bench -- search-relevance`: a labelled query set built from the store simulator's
// ground truth (type, colours, price, brand, stock, material of every product), graded per
// product: every stated constraint met = 2, right category but a soft constraint (colour,
// material) missed = 1, a hard one broken (category, price, brand, stock, a negated colour) = 0.
// NDCG@10 and constraint precision (share of returned top-10 products that break no hard
// constraint) for understand mode (/api/search, the mini searches, agentic retrieval), keyword
// mode (/api/regular-search), beside plain BM25 (MiniSearch 7.2, default options, title +
// description) over the same catalog. The queries are generated from two disjoint phrasings:
// "tuning" (the forms the rules were written against) and "held-out" (other words for the same
// things, other templates and another seed), reported apart. Then the constraint precision of
// the hand-written set in test/fixtures/search-constraints (other products, other phrasings).
import MiniSearch from 'minisearch';
import { createMemoryIndex } from '../../lambdas/adapters/search/memory-index';
import { createSearchService } from '../../lambdas/domain/search/service';
import { colourFamily } from '../../lambdas/domain/enrichment';
import { rng } from '../stores';
import { buildCatalog, recordsOf, type Truth } from './_search-catalog';
import { measureConstraints } from './_search-constraints';

interface Constraints {
  type: string;
  colour?: string; // ISCC family wanted (soft)
  notColour?: string; // family the primary colour must not be (hard)
  material?: string; // soft
  brand?: string; // hard
  min?: number;
  max?: number; // hard
  inStock?: boolean; // hard
}

interface Labelled {
  query: string;
  constraints: Constraints;
}

const TYPES: Record<string, { tuning: string[]; heldOut: string[]; range: [number, number] }> = {
  'T-Shirts': { tuning: ['tee', 't-shirt', 'tshirt'], heldOut: ['tees', 't shirts', 'tee shirt'], range: [15, 45] },
  Hoodies: { tuning: ['hoodie', 'hoodies'], heldOut: ['hoody', 'zip hoodie'], range: [40, 90] },
  Sneakers: { tuning: ['sneakers', 'trainers'], heldOut: ['kicks', 'runners', 'sneaker'], range: [60, 180] },
  Mugs: { tuning: ['mug', 'cup'], heldOut: ['mugs', 'coffee cup', 'travel mug'], range: [9, 30] },
  Headphones: { tuning: ['headphones', 'earbuds'], heldOut: ['headset', 'earphones'], range: [30, 350] },
  Lamps: { tuning: ['lamp', 'desk lamp'], heldOut: ['lamps', 'floor lamp'], range: [25, 220] },
};
const COLOURS: Record<string, { tuning: string[]; heldOut: string[] }> = {
  blue: { tuning: ['navy', 'blue'], heldOut: ['navy blue', 'dark blue', 'cobalt'] },
  red: { tuning: ['red', 'oxblood'], heldOut: ['burgundy', 'crimson', 'scarlet'] },
  olive: { tuning: ['olive'], heldOut: ['olive green', 'army'] },
  brown: { tuning: ['sand', 'beige'], heldOut: ['tan', 'camel'] },
  black: { tuning: ['black'], heldOut: ['jet black', 'noir'] },
  white: { tuning: ['white'], heldOut: ['ivory', 'off-white'] },
};
const BRANDS = ['Northwind', 'Acme Goods', 'Bluefin', 'Oak & Ash', 'Kestrel', 'Lumen'];
const MATERIALS = ['Cotton', 'Linen', 'Wool', 'Canvas', 'Ceramic', 'Walnut', 'Recycled', 'Organic'];

const TUNING_PRICE = {
  max: (n: number) => [`under ${n}`, `below $${n}`, `less than ${n} dollars`],
  min: (n: number) => [`over ${n}`, `more than $${n}`],
  range: (a: number, b: number) => [`between ${a} and ${b}`, `$${a}-${b}`],
};
const HELD_OUT_PRICE = {
  max: (n: number) => [`cheaper than $${n}`, `max ${n}`, `up to ${n} bucks`, `no more than £${n}`],
  min: (n: number) => [`at least ${n}`, `above $${n}`],
  range: (a: number, b: number) => [`from $${a} to $${b}`, `${a} to ${b} dollars`],
};

function generate(set: 'tuning' | 'heldOut', count: number): Labelled[] {
  const random = rng('search-relevance', set);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
  const price = set === 'tuning' ? TUNING_PRICE : HELD_OUT_PRICE;
  const out: Labelled[] = [];
  const typos = (word: string) => (word.length >= 5 ? `${word.slice(0, 2)}${word[3]}${word[2]}${word.slice(4)}` : word);
  for (let i = 0; i < count; i++) {
    const type = pick(Object.keys(TYPES));
    const spec = TYPES[type];
    const noun = pick(spec[set]);
    const [low, high] = spec.range;
    const cut = Math.round(low + (high - low) * (0.3 + random() * 0.4));
    const family = pick(Object.keys(COLOURS));
    const colourWord = pick(COLOURS[family][set]);
    const brand = pick(BRANDS);
    const material = pick(MATERIALS);
    const a = Math.round(low + (high - low) * random() * 0.5);
    const b = a + Math.round((high - low) * 0.4);
    const hasColour = type !== 'Headphones' && type !== 'Lamps';
    const templates: Array<() => Labelled> = [
      () => ({ query: `${colourWord} ${noun}`, constraints: { type, colour: family } }),
      () => ({ query: `${noun} ${pick(price.max(cut))}`, constraints: { type, max: cut } }),
      () => ({
        query: `${colourWord} ${noun} ${pick(price.max(cut))}`,
        constraints: { type, colour: family, max: cut },
      }),
      () => ({ query: `${brand} ${noun}`, constraints: { type, brand } }),
      () => ({ query: `${noun} not ${colourWord}`, constraints: { type, notColour: family } }),
      () => ({
        query: `${noun} in stock ${pick(price.range(a, b))}`,
        constraints: { type, inStock: true, min: a, max: b },
      }),
      () => ({ query: `${material.toLowerCase()} ${noun}`, constraints: { type, material } }),
      () => ({ query: `${typos(noun)} ${pick(price.min(cut))}`, constraints: { type, min: cut } }),
      () => ({
        query: `${brand} ${colourWord} ${noun} ${pick(price.range(a, b))}`,
        constraints: { type, brand, colour: family, min: a, max: b },
      }),
    ];
    if (set === 'heldOut') {
      templates.push(
        () => ({ query: `${noun} by ${brand} without ${colourWord}`, constraints: { type, brand, notColour: family } }),
        () => ({ query: `available ${colourWord} ${noun}`, constraints: { type, colour: family, inStock: true } }),
        () => ({
          query: `${material.toLowerCase()} ${colourWord} ${noun} ${pick(price.max(cut))}`,
          constraints: { type, colour: family, material, max: cut },
        }),
      );
    }
    let labelled = pick(templates)();
    // Colour queries only for products that come in colours.
    if (!hasColour && (labelled.constraints.colour || labelled.constraints.notColour)) labelled = templates[1]();
    out.push(labelled);
  }
  return out;
}

async function gradeOf(truth: Truth, c: Constraints): Promise<number> {
  if (truth.type !== c.type) return 0;
  if (c.brand && truth.brand !== c.brand) return 0;
  if (c.min !== undefined && truth.price < c.min) return 0;
  if (c.max !== undefined && truth.price > c.max) return 0;
  if (c.inStock && !truth.available) return 0;
  const families = await Promise.all(truth.colours.map((label) => colourFamily(label)));
  if (c.notColour && families[0] === c.notColour) return 0;
  let soft = true;
  if (c.colour && !families.includes(c.colour as never)) soft = false;
  if (c.material && truth.material !== c.material) soft = false;
  return soft ? 2 : 1;
}

const dcg = (grades: number[]) => grades.slice(0, 10).reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0);

export default async function main(): Promise<void> {
  const perStore = Number(process.argv[3] ?? 120);
  const { changes, truths } = await buildCatalog(perStore);
  const search = createSearchService({
    index: createMemoryIndex(),
    feed: null,
    records: recordsOf(changes),
    snapshots: null,
    now: Date.now,
  });
  await search.ingest(changes);
  const mini = new MiniSearch({ fields: ['title', 'description'] });
  mini.addAll(changes.map((c, id) => ({ id, title: c.product.title, description: c.product.description })));

  const systems: Record<string, (query: string) => Promise<string[]>> = {
    'understand (/api/search, mini, agentic retrieval)': async (q) =>
      (await search.search({ query: q, mode: 'understand', offset: 0, limit: 10 })).hits.map((h) => h.item.url),
    'keywords (/api/regular-search)': async (q) =>
      (await search.search({ query: q, mode: 'keywords', offset: 0, limit: 10 })).hits.map((h) => h.item.url),
    'plain BM25 (MiniSearch defaults, title + description)': async (q) =>
      mini
        .search(q)
        .slice(0, 10)
        .map((r) => changes[r.id as number].url),
  };

  console.log(
    `search-relevance: ${changes.length.toLocaleString('en-US')} products (${perStore} per store, ${new Set(changes.map((c) => c.vendor)).size} stores), graded 2/1/0 from the simulator's ground truth`,
  );
  const results: Record<string, Record<string, { ndcg: number; precision: number }>> = {};
  for (const [setName, set] of [
    ['tuning', generate('tuning', 150)],
    ['held-out', generate('heldOut', 150)],
  ] as const) {
    // Grades of every product for every query: the ideal ranking's DCG.
    const labelled: Array<Labelled & { grades: Map<string, number>; ideal: number }> = [];
    for (const item of set) {
      const grades = new Map<string, number>();
      for (const truth of truths) grades.set(truth.url, await gradeOf(truth, item.constraints));
      const ideal = dcg([...grades.values()].sort((a, b) => b - a));
      if (ideal > 0) labelled.push({ ...item, grades, ideal });
    }
    for (const [name, run] of Object.entries(systems)) {
      let ndcg = 0;
      let returned = 0;
      let kept = 0;
      for (const item of labelled) {
        const urls = await run(item.query);
        const grades = urls.map((url) => item.grades.get(url) ?? 0);
        ndcg += dcg(grades) / item.ideal;
        returned += grades.length;
        kept += grades.filter((g) => g > 0).length;
        if (process.env.SEARCH_RELEVANCE_DEBUG && name.startsWith('understand') && grades.some((g) => g === 0))
          console.log(setName, JSON.stringify(item.query), grades.join(''));
      }
      (results[name] ??= {})[setName] = { ndcg: ndcg / labelled.length, precision: returned ? kept / returned : 1 };
    }
    console.log(`${setName}: ${labelled.length} queries with at least one relevant product`);
  }

  console.log('\n| system | NDCG@10 tuning | NDCG@10 held-out | constraint precision tuning | held-out |');
  console.log('|---|---|---|---|---|');
  for (const [name, r] of Object.entries(results)) {
    console.log(
      `| ${name} | ${r.tuning.ndcg.toFixed(3)} | ${r['held-out'].ndcg.toFixed(3)} | ${r.tuning.precision.toFixed(3)} | ${r['held-out'].precision.toFixed(3)} |`,
    );
  }
  const ours = Object.values(results)[0];
  const bm25 = Object.values(results)[2];
  console.log(
    `\nheld-out: understand NDCG@10 ${ours['held-out'].ndcg.toFixed(3)} vs plain BM25 ${bm25['held-out'].ndcg.toFixed(3)}: +${(ours['held-out'].ndcg - bm25['held-out'].ndcg).toFixed(3)} (goal +0.10); constraint precision ${ours['held-out'].precision.toFixed(3)} (goal >= 0.98)`,
  );
  const examples = generate('heldOut', 6).map((l) => l.query);
  console.log(`held-out examples: ${examples.map((q) => JSON.stringify(q)).join(', ')}`);

  // Our own graded set of stated constraints, on products and phrasings the generator never uses.
  const constraints = await measureConstraints();
  console.log(
    `\nstated constraints (test/fixtures/search-constraints, ${constraints.queries} queries, /api/search top 20 + mini top 10): ${constraints.kept}/${constraints.returned} returned products keep every stated constraint = ${constraints.precision.toFixed(3)} (goal >= 0.97)`,
  );
  for (const f of constraints.failures.slice(0, 10))
    console.log(`  ${f.operation} ${JSON.stringify(f.query)}: ${f.title} (${f.broken.join(', ')})`);
}
