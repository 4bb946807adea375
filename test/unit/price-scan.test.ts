// The trie scanner in price.ts must find exactly what one alternation regex over the same tokens
// finds (longest token first, case-insensitive, no word-like token inside a longer word): that
// regex is the readable definition, the trie is the fast one.
import { describe, expect, it } from 'vitest';
import { currencyTokensByPriority, parsePrice, scanCurrencyTokens } from '../../lambdas/domain/extraction/price';
import { loadPriceCases } from '../bench/price-strings';

function referencePattern(tokens: readonly string[]): RegExp {
  const alternatives = tokens.map((token) => {
    let body = token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    if (/^[A-Z]{1,3}\\\$$/.test(body)) body = body.replace('\\$', ' ?\\$');
    const letter = /^[\p{L}\p{M}]/u;
    const before = letter.test(token) ? '(?<![\\p{L}\\p{M}])' : '';
    const after = letter.test([...token].at(-1) ?? '') ? '(?![\\p{L}\\p{M}])' : '';
    return `${before}${body}${after}`;
  });
  return new RegExp(alternatives.join('|'), 'giu');
}

function referenceScan(pattern: RegExp, text: string): Array<{ start: number; end: number }> {
  const spans: Array<{ start: number; end: number }> = [];
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m && spans.length < 200; m = pattern.exec(text)) {
    spans.push({ start: m.index, end: m.index + m[0].length });
  }
  return spans;
}

/** Deterministic mixes of tokens (in several letter cases), digits, words and odd characters. */
function generatedTexts(tokens: readonly string[], count: number): string[] {
  let seed = 20240611;
  const next = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
  const pieces = [
    '1',
    '12',
    '1.299,99',
    ' ',
    '  ',
    '-',
    ':',
    '.',
    ',',
    'a',
    'Lamp',
    'é',
    '\u0301',
    'ı',
    'İ',
    'ſ',
    '\u212a',
    'ß',
    '\u00a0',
    '😀',
    '\u200b',
    'from ',
    ' now ',
  ];
  const texts: string[] = [];
  for (let k = 0; k < count; k++) {
    let text = '';
    for (let p = 1 + next(6); p > 0; p--) {
      if (next(2)) {
        const token = tokens[next(tokens.length)];
        const cased = [token, token.toUpperCase(), token.toLowerCase(), token[0].toUpperCase() + token.slice(1)];
        text += cased[next(cased.length)];
      } else {
        text += pieces[next(pieces.length)];
      }
    }
    texts.push(text);
  }
  return texts;
}

describe('currency token scanner', () => {
  const tokens = currencyTokensByPriority();
  const pattern = referencePattern(tokens);

  it('knows the table: longest tokens first', () => {
    expect(tokens.length).toBeGreaterThan(300);
    for (let i = 1; i < tokens.length; i++) expect(tokens[i - 1].length).toBeGreaterThanOrEqual(tokens[i].length);
  });

  it.each([
    ['€12', [[0, 1]]],
    ['12 kr.', [[3, 6]]],
    ['AU $59.95', [[0, 4]]],
    ['Lamp 12 L', [[8, 9]]],
    ['ZKč 5', []],
    ['€HT', [[0, 1]]],
    [
      'usd 5 USD',
      [
        [0, 3],
        [6, 9],
      ],
    ],
  ])('%j -> %j', (text, spans) => {
    expect(scanCurrencyTokens(text).map((s) => [s.start, s.end])).toEqual(spans);
  });

  it('matches the reference regex on every corpus string and hint', () => {
    for (const c of loadPriceCases()) {
      for (const text of [c.input ?? '', c.currency_hint ?? '']) {
        expect(scanCurrencyTokens(text), JSON.stringify(text)).toEqual(referenceScan(pattern, text));
      }
    }
  });

  it('matches the reference regex on generated mixes of tokens, cases and scripts', () => {
    for (const text of generatedTexts(tokens, 3000)) {
      expect(scanCurrencyTokens(text), JSON.stringify(text)).toEqual(referenceScan(pattern, text));
    }
  });

  it('stays bounded on long and hostile input', () => {
    expect(scanCurrencyTokens('$'.repeat(5000))).toHaveLength(200);
    expect(parsePrice('x'.repeat(100_000) + ' $5')).toEqual({ amount: null, currency: null });
    expect(parsePrice('\u00a0'.repeat(3000) + '$5')).toEqual({ amount: 5, currency: 'USD' });
  });
});
