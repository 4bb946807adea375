// customer_profile of any JSON shape -> ProfileSignals, and the hard rules of agentic results.
import { describe, expect, it } from 'vitest';
import { interpretProfile, normaliseKey } from '../../lambdas/domain/agentic/profile';
import { avoidedTerm, hardRules, missingParts, rejection, ruleBroken } from '../../lambdas/domain/agentic/rules';
import { product } from './agentic-fixtures';

describe('interpretProfile', () => {
  it('reads the conventional shape', () => {
    const signals = interpretProfile({
      style: {
        fit: 'relaxed',
        color: 'navy and olive',
        aesthetic: ['minimal', 'outdoorsy'],
        silhouette: ['straight'],
        avoid: ['polyester', 'Neon Green'],
      },
      preferences: { in_stock_only: true, comfort_priority: false },
      usage_context: {
        activities: ['hiking', 'travel'],
        environment: 'rainy city',
        travel_friendly: true,
        durability_priority: true,
      },
      purchase_behavior: { value: 'budget-conscious', buying_frequency: 'monthly' },
    });
    expect(signals).toEqual({
      inStockOnly: true,
      value: true,
      avoid: ['polyester', 'neon green'],
      colours: ['navy', 'olive'],
      fits: ['relaxed', 'straight'],
      aesthetics: ['minimal', 'outdoorsy', 'durable'],
      activities: ['hiking', 'travel', 'rainy city'],
    });
  });

  it('finds keys wherever they sit, in any case style, with strings, lists or booleans as text', () => {
    const signals = interpretProfile({
      inStockOnly: 'yes',
      Avoid: 'no wool, hoodies',
      'favorite-colors': ['Burgundy'],
      nested: [{ deeper: { Activities: 'yoga / running' } }],
      purchaseBehavior: { value: 'luxury' },
    });
    expect(signals.inStockOnly).toBe(true);
    expect(signals.avoid).toEqual(['wool', 'hoodies']);
    expect(signals.colours).toEqual(['burgundy']);
    expect(signals.activities).toEqual(['yoga', 'running']);
    expect(signals.value).toBe(false);
  });

  it('ignores what it cannot read and never throws', () => {
    for (const odd of [
      null,
      42,
      'text',
      [],
      [1, 2],
      { style: null },
      { style: 7 },
      { preferences: { in_stock_only: 'maybe' } },
      { avoid: [null, 3, {}] },
    ]) {
      expect(() => interpretProfile(odd)).not.toThrow();
    }
    expect(interpretProfile({ preferences: { in_stock_only: 'maybe' }, unknown: { x: 1 } })).toEqual({});
    expect(interpretProfile({ preferences: { in_stock_only: false } })).toEqual({});
  });

  it('is bounded: deep nesting, many terms and long strings cost little', () => {
    let deep: Record<string, unknown> = { avoid: 'too deep' };
    for (let i = 0; i < 50; i++) deep = { level: deep };
    expect(interpretProfile(deep)).toEqual({});
    const many = interpretProfile({ avoid: Array.from({ length: 500 }, (_, i) => `word${i}`) });
    expect(many.avoid).toHaveLength(20);
    expect(interpretProfile({ avoid: ['x'.repeat(5000)] })).toEqual({});
  });

  it('normalises keys', () => {
    expect(normaliseKey('inStockOnly')).toBe('in_stock_only');
    expect(normaliseKey('In Stock-Only')).toBe('in_stock_only');
  });
});

describe('hard rules', () => {
  it('avoided words match what the product is (title, type, attributes), singular or plural, phrases as phrases', () => {
    expect(avoidedTerm(product(), ['cotton'])).toBe('cotton');
    expect(avoidedTerm(product(), ['tees'])).toBe('tees');
    expect(avoidedTerm(product(), ['navy'])).toBe('navy');
    expect(avoidedTerm(product(), ['blue'])).toBe('blue');
    expect(avoidedTerm(product(), ['black'])).toBeNull(); // only the description mentions it
    expect(avoidedTerm(product(), ['cotton tee'])).toBe('cotton tee');
    expect(avoidedTerm(product(), ['tee cotton'])).toBeNull();
    expect(avoidedTerm(product({ title: 'Zip Hoodie' }), ['hoodies'])).toBe('hoodies');
  });

  it('in stock only, avoid and the price asked for', () => {
    const rules = hardRules({ inStockOnly: true, avoid: ['wool'] }, { price: { max: 30 } });
    expect(ruleBroken(product(), rules)).toBeNull();
    expect(ruleBroken(product({ is_available: false }), rules)).toMatch(/stock/);
    expect(ruleBroken(product({ is_available: null }), rules)).toMatch(/stock/);
    expect(ruleBroken(product({ title: 'Wool Tee' }), rules)).toMatch(/wool/);
    expect(
      ruleBroken(product({ price: { currency: 'USD', current_value: 31, compare_at_value: null } }), rules),
    ).toMatch(/above 30/);
    const euros = hardRules({}, { price: { min: 10, currency: 'eur' } });
    expect(
      ruleBroken(product({ price: { currency: 'USD', current_value: 5, compare_at_value: null } }), euros),
    ).toBeNull();
    expect(
      ruleBroken(product({ price: { currency: 'EUR', current_value: 5, compare_at_value: null } }), euros),
    ).toMatch(/below 10/);
  });

  it('a result needs a title, a price and an image', () => {
    expect(missingParts(product())).toEqual([]);
    expect(
      missingParts(
        product({ title: ' ', images: [], price: { currency: 'USD', current_value: null, compare_at_value: null } }),
      ),
    ).toEqual(['title', 'price', 'image']);
    expect(rejection(null, hardRules({}))).toMatch(/could not be read/);
    expect(rejection(product({ images: [] }), hardRules({}))).toMatch(/lacks image/);
  });
});
