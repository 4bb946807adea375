// Accept-Language per supported country: the country's main language first, then English.
const LANGUAGE_BY_COUNTRY: Record<string, string> = {
  us: 'en-US', gb: 'en-GB', uk: 'en-GB', ca: 'en-CA', au: 'en-AU', nz: 'en-NZ', ie: 'en-IE', in: 'en-IN',
  za: 'en-ZA', sg: 'en-SG', ph: 'en-PH', ng: 'en-NG', gh: 'en-GH', lk: 'en-LK', bd: 'en-BD', mm: 'en-MM',
  de: 'de-DE', at: 'de-AT', ch: 'de-CH', lu: 'fr-LU', fr: 'fr-FR', be: 'nl-BE', nl: 'nl-NL',
  es: 'es-ES', mx: 'es-MX', ar: 'es-AR', cl: 'es-CL', co: 'es-CO', it: 'it-IT', pt: 'pt-PT', br: 'pt-BR',
  se: 'sv-SE', no: 'nb-NO', dk: 'da-DK', fi: 'fi-FI', pl: 'pl-PL', cz: 'cs-CZ', sk: 'sk-SK', hu: 'hu-HU',
  ro: 'ro-RO', bg: 'bg-BG', gr: 'el-GR', hr: 'hr-HR', si: 'sl-SI', ee: 'et-EE', lv: 'lv-LV', lt: 'lt-LT',
  tr: 'tr-TR', ru: 'ru-RU', ua: 'uk-UA', by: 'be-BY', kz: 'kk-KZ', kg: 'ky-KG', il: 'he-IL', eg: 'ar-EG',
  sa: 'ar-SA', ae: 'ar-AE', jp: 'ja-JP', kr: 'ko-KR', cn: 'zh-CN', tw: 'zh-TW', hk: 'zh-HK', vn: 'vi-VN',
  th: 'th-TH', id: 'id-ID', my: 'ms-MY',
};

/** e.g. de -> "de-DE,de;q=0.9,en;q=0.5"; us -> "en-US,en;q=0.9"; unknown -> English. */
export function acceptLanguageFor(countryCode: string | undefined): string {
  const locale = LANGUAGE_BY_COUNTRY[(countryCode ?? 'us').toLowerCase()] ?? 'en-US';
  const language = locale.split('-')[0];
  return language === 'en' ? `${locale},en;q=0.9` : `${locale},${language};q=0.9,en;q=0.5`;
}
