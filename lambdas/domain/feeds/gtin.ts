// GS1 identifiers (GTIN-8, -12, -13, -14: EAN, UPC, JAN, ISBN-13): digits only and a mod-10 check
// digit, the form Merchant Center accepts for [gtin].

const GTIN_LENGTHS = new Set([8, 12, 13, 14]);

/** The GTIN without the spaces and dashes people write in it, or null when it is not digits. */
export function normaliseGtin(raw: string): string | null {
  const digits = raw.replace(/[\s-]/g, '');
  return /^\d+$/.test(digits) ? digits : null;
}

/** The GS1 check digit of the digits before it (weights 3 and 1 from the right). */
export function gs1CheckDigit(body: string): number {
  let sum = 0;
  for (let i = body.length - 1, weight = 3; i >= 0; i--, weight = 4 - weight) sum += Number(body[i]) * weight;
  return (10 - (sum % 10)) % 10;
}

/** Why a GTIN is not one Merchant Center takes, or null when it is valid. */
export function gtinProblem(raw: string): string | null {
  const gtin = normaliseGtin(raw);
  if (gtin === null) return 'gtin must be digits only';
  if (!GTIN_LENGTHS.has(gtin.length)) return 'gtin must have 8, 12, 13 or 14 digits';
  if (/^0+$/.test(gtin)) return 'gtin must not be all zeros';
  if (gs1CheckDigit(gtin.slice(0, -1)) !== Number(gtin.at(-1))) return 'gtin check digit is wrong';
  return null;
}
