// Query understanding: every form shoppers write, read offline and deterministically.
import { describe, expect, it } from 'vitest';
import { keywordsOnly, understand } from '../../lambdas/domain/search/understand';
import { analyze, editDistance, synonymsOf, typoBudget } from '../../lambdas/domain/search/text';

const BRANDS: Record<string, number> = { northwind: 1, 'oak and ash': 0.9, 'acme goods': 1, nike: 0.95, apple: 0.2 };
const catalog = { brandShare: (name: string) => BRANDS[name] ?? 0 };
const read = (query: string) => understand(query, catalog);

describe('price constraints', () => {
  it.each([
    ['hoodie under 50', { max: 50 }],
    ['hoodie below 50', { max: 50 }],
    ['mug less than £20', { max: 20, currency: 'GBP' }],
    ['lamp cheaper than 100 dollars', { max: 100, currency: 'USD' }],
    ['tee up to 25', { max: 25 }],
    ['sneakers over $100', { min: 100, currency: 'USD' }],
    ['sneakers more than 80', { min: 80 }],
    ['sneakers at least 60', { min: 60 }],
    ['jeans between 40 and 80', { min: 40, max: 80 }],
    ['jeans between 80 and 40', { min: 40, max: 80 }],
    ['mug $30-60', { min: 30, max: 60, currency: 'USD' }],
    ['mug 30-60 euros', { min: 30, max: 60, currency: 'EUR' }],
    ['from $30 to $60 tee', { min: 30, max: 60, currency: 'USD' }],
    ['lamp around 100', { min: 80, max: 120 }],
    ['$50 hoodie', { max: 50, currency: 'USD' }],
    ['sofa under 1,299', { max: 1299 }],
    ['tv under 1.5k', { max: 1500 }],
  ])('%s', async (query, price) => {
    const u = await read(query);
    expect(u.understood.price).toEqual(price);
    // The price words never stay in the text.
    expect(u.understood.terms.join(' ')).not.toMatch(/\d|under|below|between|over|than|around/);
  });

  it('leaves sizes and model numbers alone', async () => {
    expect((await read('sneakers size 42')).understood.price).toBeUndefined();
    expect((await read('shoes 40-42')).understood.price).toBeUndefined();
    expect((await read('iphone 15')).understood.price).toBeUndefined();
  });
});

describe('colours', () => {
  it.each([
    ['navy hoodie', 'blue'],
    ['oxblood boots', 'red'],
    ['burgundy scarf', 'red'],
    ['charcoal coat', 'gray'],
    ['olive jacket', 'olive'],
    ['sand chinos', 'brown'],
    ['light blue shirt', 'blue'],
    ['fuchsia dress', 'pink'],
  ])('%s -> %s', async (query, family) => {
    const u = await read(query);
    expect(u.understood.colours).toEqual([family]);
    expect(u.groups.flatMap((g) => g.variants.map((v) => v.term))).not.toContain(analyze(query.split(' ')[0])[0]);
  });
});

describe('colour words that are also things', () => {
  it('"wine glasses" boosts red gently and keeps "wine" as a scoring word', async () => {
    const u = await read('wine glasses');
    expect(u.understood.colours).toEqual(['red']);
    expect(u.colourStrength).toBe('gentle');
    expect(u.optional).toEqual(['wine']);
    expect(u.understood.terms).toEqual(['glasses']);
    expect((await read('burgundy scarf')).colourStrength).toBe('firm');
    expect((await read('rose pink scarf')).colourStrength).toBe('firm');
  });
});

describe('negations', () => {
  it('a negated colour excludes its family', async () => {
    const u = await read('hoodie not black');
    expect(u.understood.notColours).toEqual(['black']);
    expect(u.understood.colours).toEqual([]);
    expect((await read('mug not in navy')).understood.notColours).toEqual(['blue']);
    // A colour phrase is negated whole: "jet black" is black, not "jet" plus a wanted black.
    const phrase = await read('tee not jet black');
    expect(phrase.understood).toMatchObject({ notColours: ['black'], colours: [], excluded: [], terms: ['tee'] });
    expect((await read('jet black tee')).understood).toMatchObject({ colours: ['black'], terms: ['tee'] });
  });

  it('a negated word excludes products that have it, with its kin', async () => {
    const u = await read('jacket without hood');
    expect(u.understood.excluded).toEqual(['hood']);
    expect(u.exclude).toEqual([['hood'], ['hoodi']]);
    expect((await read('sneakers -leather')).understood.excluded).toEqual(['leather']);
    expect((await read('dress no sequins')).understood.excluded).toEqual(['sequins']);
  });

  it('a negated phrase drops only products that have all of it', async () => {
    const beads = await read('weighted blanket without glass beads');
    expect(beads.understood).toMatchObject({ terms: ['weighted', 'blanket'], excluded: ['glass beads'] });
    expect(beads.exclude).toEqual([['glass', 'bead']]);
    // The phrase ends at a filler word: what follows is wanted again.
    const lights = await read('lights without wiring with switch');
    expect(lights.understood).toMatchObject({ excluded: ['wiring'], terms: ['lights', 'switch'] });
  });

  it('"non slip", "no show" are what a product is, not negations', async () => {
    expect((await read('non slip shower mat')).understood.excluded).toEqual([]);
    expect((await read('no show socks')).understood).toMatchObject({ excluded: [], notColours: [] });
  });
});

describe('gender and age group', () => {
  it.each([
    ["women's trainers", 'women', undefined],
    ['womens running shoes', 'women', undefined],
    ['ladies coat', 'women', undefined],
    ['mens hoodie', 'men', undefined],
    ["men's jacket", 'men', undefined],
    ['unisex cap', 'unisex', undefined],
    ['girls dress', 'girls', 'kids'],
    ['boys shorts', 'boys', 'kids'],
    ['kids headphones', undefined, 'kids'],
    ['baby blanket', undefined, 'baby'],
  ])('%s', async (query, gender, age) => {
    const u = await read(query);
    expect(u.understood.gender).toBe(gender);
    expect(u.understood.ageGroup).toBe(age);
    if (gender === 'women') expect(u.genders).toEqual(['women', 'unisex']);
  });
});

describe('brands, categories, stock and value', () => {
  it('reads brands the catalog knows, multi-word ones included', async () => {
    expect((await read('Northwind mug')).understood.brands).toEqual(['northwind']);
    expect((await read('Oak & Ash lamp')).understood.brands).toEqual(['oak and ash']);
    expect((await read('acme goods tee')).understood.brands).toEqual(['acme goods']);
    expect((await read('Zara tee')).understood.brands).toEqual([]);
    // A brand name that is mostly a word in this catalog stays a word and only boosts the brand.
    const apple = await read('apple watch strap');
    expect(apple.understood.brands).toEqual([]);
    expect(apple.brandBoosts).toEqual(['apple']);
    expect(apple.understood.terms).toContain('apple');
  });

  it('maps what is left to a taxonomy category', async () => {
    expect((await read('navy hoodie under 50')).understood.category?.path).toBe(
      'Apparel & Accessories > Clothing > Clothing Tops > Hoodies',
    );
    expect((await read('trainers')).understood.category?.path).toMatch(/Sneakers$/);
    expect((await read('coffee mug')).understood.category?.path).toMatch(/Mugs$/);
  });

  it('in stock filters, cheap prefers value', async () => {
    const u = await read('cheap tshirt in stock');
    expect(u.inStock).toBe(true);
    expect(u.value).toBe(true);
    expect(u.understood.terms).toEqual(['tshirt']);
  });

  it('a query of everything at once', async () => {
    const u = await read("Nike women's navy trainers between $40 and $80 not white without laces in stock");
    expect(u.understood).toMatchObject({
      terms: ['trainers'],
      price: { min: 40, max: 80, currency: 'USD' },
      colours: ['blue'],
      notColours: ['white'],
      excluded: ['laces'],
      gender: 'women',
      brands: ['nike'],
    });
    expect(u.inStock).toBe(true);
  });
});

describe('synonyms, stems and typos', () => {
  it('expands synonyms both ways', async () => {
    expect(synonymsOf(analyze('trainers')[0])).toContain(analyze('runner')[0]);
    expect(synonymsOf('mug')).toContain('cup');
    expect(synonymsOf('cup')).toContain('mug');
    const u = await read('cup');
    expect(u.groups[0].variants.map((v) => v.term)).toEqual(['cup', 'mug']);
  });

  it("stems and folds spellings, never one word into another (synonyms are the query's)", () => {
    expect(analyze('Running Trainers')).toEqual(analyze('run trainer'));
    expect(analyze('T-Shirts')).toEqual(analyze('tshirt'));
    expect(analyze('Grey Jumpers')).toEqual(analyze('gray jumper'));
    expect(analyze('trainers')).not.toEqual(analyze('sneakers'));
    expect(analyze('tee')).not.toEqual(analyze('t-shirt'));
    expect(synonymsOf(analyze('trainers')[0])).toContain(analyze('sneakers')[0]);
    expect(synonymsOf(analyze('tee')[0])).toContain(analyze('t-shirt')[0]);
    expect(synonymsOf(analyze('jumper')[0])).toContain(analyze('sweater')[0]);
  });

  it('allows 1 typo from 4 letters and 2 from 8', () => {
    expect(typoBudget('mug')).toBe(0);
    expect(typoBudget('lamp')).toBe(1);
    expect(typoBudget('sneakers')).toBe(2);
    expect(typoBudget('x100')).toBe(0);
    expect(editDistance('hodie', 'hoodie', 1)).toBe(1);
    expect(editDistance('sneaekr', 'sneaker', 2)).toBe(1);
    expect(editDistance('snekaers', 'sneakers', 1)).toBe(1);
    expect(editDistance('lamp', 'lump', 0)).toBe(1);
  });

  it('keyword mode understands nothing', () => {
    const u = keywordsOnly('navy hoodie under 50 not black');
    expect(u.understood).toEqual({
      terms: ['navy', 'hoodie', 'under', '50', 'not', 'black'],
      colours: [],
      notColours: [],
      excluded: [],
      brands: [],
    });
    expect(u.groups.every((g) => g.variants.length === 1)).toBe(true);
  });
});

describe('more ways shoppers state constraints', () => {
  it.each([
    ['boots 150+', { min: 150 }],
    ['jacket $80 and up', { min: 80, currency: 'USD' }],
    ['bottle 100 or more', { min: 100 }],
    ['jacket 100 or less', { max: 100 }],
    ['pajamas $30 and under', { max: 30, currency: 'USD' }],
    ['kettle 60 max', { max: 60 }],
  ])('%s', async (query, price) => {
    const u = await read(query);
    expect(u.understood.price).toEqual(price);
    expect(u.understood.terms.join(' ')).not.toMatch(/\d|less|more|under|max|up/);
  });

  it('who it is for: sons and daughters are children, women and men grown-ups, "not for kids" rules children out', async () => {
    expect(await read('rain jacket for my son')).toMatchObject({ genders: ['boys', 'unisex'], ageKnown: true });
    expect(await read('dress for my daughter')).toMatchObject({ genders: ['girls', 'unisex'], ageKnown: true });
    expect((await read('womens boots')).ageGroups).toEqual(['adult']);
    const notKids = await read('waterproof jacket, not for kids');
    expect(notKids.ageGroups).toEqual(['adult']);
    expect(notKids.ageKnown).toBeUndefined();
    expect(notKids.understood.terms).toEqual(['waterproof', 'jacket']);
    expect((await read('boots not for men')).genders).toEqual(['women', 'unisex', 'girls', 'boys']);
  });

  it('negations: by a brand, X-free, "isn\'t", and carried over "or"', async () => {
    expect((await read('boots not by Tallon')).understood).toMatchObject({ terms: ['boots'], excluded: ['tallon'] });
    expect((await read('leather-free boots')).understood).toMatchObject({ terms: ['boots'], excluded: ['leather'] });
    expect((await read("water bottle that isn't glass")).understood.excluded).toEqual(['glass']);
    expect((await read('water bottle, no plastic or glass')).understood).toMatchObject({
      terms: ['water', 'bottle'],
      excluded: ['plastic', 'glass'],
    });
    expect((await read('backpack w/o wheels')).understood.excluded).toEqual(['wheels']);
    expect((await read('hoodie not sold out')).inStock).toBe(true);
  });
});
