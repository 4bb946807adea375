// The learned chooser (learned.ts) over the per-field candidates (features.ts): the weights, not
// the source, decide; the committed weights cover every field; a price inside a noisy block is a
// candidate the weights can take where the rules drop it.
import { describe, expect, it } from 'vitest';
import { priceCandidates } from '../../lambdas/domain/extraction/features';
import { analysePage } from '../../lambdas/domain/extraction/analyse';
import { type ExtractionWeights, WEIGHTS } from '../../lambdas/domain/extraction/learned';
import { readProductPage, ruleReading } from '../../lambdas/domain/extraction/page';

const URL_ = 'https://shop.example/products/walnut-desk';
const html = `<!doctype html><html lang="en"><head><title>Walnut Desk | Shop</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Walnut Desk",
"offers":{"@type":"Offer","price":"50.00","priceCurrency":"USD"}}</script></head><body>
<div class="product"><h1>Walnut Desk</h1><span class="price">$40.00</span>
<form><button type="submit">Add to cart</button></form></div></body></html>`;

const model = (weights: Record<string, number>) => ({ bias: 0, weights, threshold: 0 });

describe('learned candidate scoring', () => {
  it('structured data is a feature: the weights decide between the markup price and the shown one', () => {
    const markup: ExtractionWeights = { price: model({ src_json_ld: 5 }) };
    const shown: ExtractionWeights = { price: model({ dom_top: 5, src_json_ld: -1 }) };
    expect(readProductPage(html, URL_, { countryCode: 'us' }, markup).merged.price).toBe(50);
    expect(readProductPage(html, URL_, { countryCode: 'us' }, shown).merged.price).toBe(40);
  });

  it('a field whose best candidate is under the threshold is left empty; without a model the rules decide', () => {
    const none: ExtractionWeights = { price: { bias: -10, weights: {}, threshold: 0.5 } };
    expect(readProductPage(html, URL_, { countryCode: 'us' }, none).merged.price).toBeNull();
    const rules = ruleReading(analysePage(html, URL_, { countryCode: 'us' })).merged.price;
    expect(readProductPage(html, URL_, { countryCode: 'us' }, {}).merged.price).toBe(rules);
  });

  it('the committed weights hold a model for every field and the page type', () => {
    for (const field of ['price', 'title', 'brand', 'sku', 'page'] as const) {
      expect(Object.keys(WEIGHTS[field]?.weights ?? {}).length, field).toBeGreaterThan(3);
    }
  });

  it('a price inside a banner-classed block near the heading is a candidate (the rules drop it)', () => {
    const page = `<!doctype html><html lang="en"><head><title>Model S | Cars</title></head><body>
<div class="vehicle"><h1>Model S Long Range</h1><div class="hero-banner"><p id="item-price">$86,950</p></div></div></body></html>`;
    const r = ruleReading(analysePage(page, 'https://cars.example/new/5YJ3', { countryCode: 'us' }));
    expect(r.merged.price).toBeNull();
    const candidate = priceCandidates(r).find((c) => c.value === 86950);
    expect(candidate?.features.dom_noise).toBe(1);
  });
});
