// Locale-aware price parsing, in cohesive parts: the currency table (currency.ts), the token
// scanner (scanner.ts), number reading (numbers.ts), the price choice (choice.ts) and the entry
// point (parse.ts). Callers import from here, as they did from the single price.ts.
export { parsePrice, type ParsedPrice, type PriceHints } from './parse';
export { COUNTRY_CURRENCY, currencyExponent, parseMinorUnits } from './currency';
export { currencyTokensByPriority, scanCurrencyTokens } from './scanner';
