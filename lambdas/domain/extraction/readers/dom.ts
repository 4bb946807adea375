// DOM heuristics for what markup does not say (or says wrong): the displayed price near the
// buy button with its struck-through compare-at price, availability wording, title, SKU,
// brand, images, breadcrumbs, and the links of related-product blocks. One pass over the tree
// collects candidates with inherited context (inside a related block, inside <s>/<del>, ...).
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import type { Availability, ImageCandidate, ProductCandidate } from '../candidate';
import { COUNTRY_CURRENCY, parsePrice } from '../price';
import { absoluteUrl, brandShaped, cleanText, isBrandPlaceholder } from '../values';

export interface PriceCandidate {
  amount: number;
  currency: string | null;
  text: string;
  score: number;
  order: number;
  /** Struck through or labelled as a former/list price. */
  former: boolean;
  inMain: boolean;
  /** Inside a related/recommended/navigation block, or hidden. */
  noise: boolean;
  /** The element's text holds several numbers (a price box with sale and regular prices). */
  composite: boolean;
  /** An optional extra's price: inside a checkbox's label ("Include 4-year protection for $23.76"). */
  addon?: boolean;
  /** Read from the product area's plain text (its order is after the walk's elements). */
  plain?: boolean;
  hidden: boolean;
  el: Element;
}

export interface DomReading {
  product: ProductCandidate;
  priceCandidates: PriceCandidate[];
  /** Amounts displayed anywhere in the product area (to confirm markup prices). */
  displayedAmounts: Set<number>;
  hasAddToCart: boolean;
  /** A control that asks about one item instead of buying it ("Contact seller", "Schedule a test drive"). */
  hasEnquiry?: boolean;
  /** Product cards outside the main product (listing pages have many). */
  productCardCount: number;
  breadcrumbs: string[];
  relatedUrls: string[];
  /** Visible h1 headings (listing and article pages often have none or several). */
  h1Count: number;
  /** A labelled SKU in the blocks after the product area (details tabs): the last resort. */
  detailsSku?: string | null;
  /**
   * Prices inside noisy blocks (navigation, related products, drawers, hidden offers): never the
   * rules' choice, but candidates for the learned scorer, which weighs their context.
   */
  noisePrices?: PriceCandidate[];
  /** Walk order of the product's heading and of the first buy control (-1: none), for position features. */
  h1Order?: number;
  buttonOrder?: number;
  /** Elements walked: the scale of the orders above. */
  elementCount?: number;
  /** The other SKU-like values the page states (labelled texts, buy-form fields), for candidate scoring. */
  skuTexts?: string[];
  /** Brand-like texts (brand elements, "Brand:" rows). */
  brandTexts?: string[];
}

const NOISE =
  /(^|[\s_-])(related|recommend\w*|similar|upsell|up-sell|cross-?sell\w*|carousel|also|recently|recent|you-may|youmay|bundle|footer|header|nav|navigation|menu|megamenu|breadcrumbs?|minicart|mini-cart|cart-drawer|drawer|sponsored|sidebar|reviews?|rating|banner|promo-bar|newsletter|cookie|modal|popup|accessories|complete-the-look|shop-the-look|strands|rr-|rrPlacement)([\s_-]|$)/i;
const NOISE_LOOSE =
  /(related|recommend|similar|upsell|crosssell|cross-sell|carousel|alsobought|also-bought|alsoviewed|also-viewed|recentlyviewed|recently-viewed|youmayalsolike|you-may-also|sponsored|footer|megamenu|mini-?cart|cart-?drawer)/i;
const PRICE_ATTR = /price|prix|preis|precio|prezzo|preco|cena|prijs|pris|amount|cost|betrag|money/i;
// Short words only count as whole words (camelCase split first): "a-size-base" is not a base price.
const PRICE_NEGATIVE =
  /(installment|instalment|monthly|klarna|afterpay|financ|shipping|delivery|freight|saving|discount|percent|coupon|voucher|subtotal|minicart|(^|[^a-z])(per|unit|base|month|tax|vat|save|pct|off|label|range|filter|slider|points|reward|deposit|club|member|total|each|ppu|ppv|kg|liter)([^a-z]|$))/i;
const OPTION_PICKER =
  /(swatch|twister|variation|variant-?(list|option|select)|option-?(list|value)|dropdown|size-?(list|selector|option)|color-?(list|selector|option)|select)/i;
// Short words only as whole words or glued to "price": "bold", "placeholder" and "highlight" are no former price.
const PRICE_FORMER =
  /((^|[^a-z])(old|was|list|full|high)([^a-z]|$)|(old|was|list|full)-?price|regular|original|compare|strike|crossed|before|rrp|msrp|uvp|previous|retail|standard|reference|initial|prix-barre|barre|streich|tachado|non-?sale)/i;
const PRICE_CURRENT =
  /(sale|current|now|final|special|our|actual|offer|promo|deal|selling|reduced|discounted|new|sell|buy|main|product-price|price--large|big|primary|display)/i;
const MAX_PARSED_PRICE_TEXTS = 60;
// Words written against a price in the text around it (themes often label without classes).
const FORMER_LABEL =
  /(?:^|[^\p{L}])(?:was|regular(?:\s+price)?|reg\.?|list\s+price|rrp|msrp|srp|compare\s+at|originally|original\s+price|before|instead\s+of|statt|uvp|früher|avant|prix\s+barré|antes|precio\s+anterior|prima|era|voor|tidligere|förut|ordinarie|normalpris|было|стара\s+ціна|定価|通常価格|原价|原價|vorher|ehemals|zuvor|alter\s+preis|streichpreis|poprzednia\s+cena|stara\s+cena|původní\s+cena|eski\s+fiyat|старая\s+цена|参考価格|希望小売価格|정가|prezzo\s+di\s+listino|prix\s+initial|prix\s+de\s+référence)\s*:?\s*$/iu;
const INSTALMENT_LABEL =
  /(payments?\s+of|instal?lments?\s+of|interest[\s-]free|per\s+month|a\s+month|\/\s*mo\b|monthly|klarna|afterpay|affirm|sezzle|zip\s?pay|pay\s+in\s+\d|\d\s*x\s*$|raten|mensualit|cuotas|parcelas|rate\s+da|分期|月々|할부|meses\s+sin\s+intereses|sem\s+juros|\d\s*x\s+(?:de|of)\s*$|taksit|рассрочк|w\s+ratach)/i;
const COUPON_LABEL =
  /(coupon|voucher|promo\s*code|with\s+code|use\s+code|code\s+\S+\s*:?\s*$|gutschein|cupón|cupom|code\s+promo|クーポン|优惠券|쿠폰|member\s+price|club\s+price|with\s+subscription|subscribe\s*(&|and)\s*save)/i;
const UNIT_AFTER_PRICE =
  /^\s*(\/|per\s|pro\s|je\s|each\b|ea\.?\b|le\s+(kg|litre)|\/?\s*(kg|g|100\s?g|l|100\s?ml|ml|m|m2|m²|lb|oz|st|stk|unit)\b)/i;
/** A price before tax ("excl. VAT", "zzgl. MwSt.", "HT", "税抜"): a business price beside the one shoppers pay. */
const NET_OF_TAX =
  /(?:^|[^\p{L}])(?:excl?\.?|exkl\.?|excluding|exclusive\s+of|ex\.?|zzgl\.?|ohne|plus|hors|sans|sin|senza|bez|ekskl\.?|без|\+)\s*(?:vat|tax(?:es)?|gst|btw|mwst|ust|moms|mva|alv|tva|iva|dph|áfa|ндс|пдв|taxe?s?)(?![\p{L}])|(?:^|[^\p{L}])netto(?![\p{L}])|税抜|税別|不含税|未税|\bHT\b/iu;
const RELATED_HEADING =
  /(also\s+(bought|like|viewed|love|purchased)|you\s+may\s+(also\s+)?like|you\s+might\s+(also\s+)?like|related\s+products?|similar\s+(items|products)|recommended|recently\s+viewed|frequently\s+bought|complete\s+the\s+look|kunden\s+kauften\s+auch|das\s+könnte\s+dir|vous\s+aimerez|produits\s+similaires|también\s+te\s+puede|productos\s+relacionados|potrebbe\s+piacerti|prodotti\s+correlati|gerelateerde|anderen\s+kochten|похожие\s+товары|с\s+этим\s+товаром|おすすめ|関連商品|相关商品|猜你喜欢|추천\s*상품)/i;
/** A price: a currency mark or code touching a number, or a number with two decimals. */
const PRICE_LIKE = /(?:[$€£¥₩₹₽₺₫฿₪₴₸]\s?|\b[A-Z]{3}\s?)?\d[\d.,]*/g;
const moneyCount = (text: string) => {
  let n = 0;
  for (const m of text.matchAll(PRICE_LIKE)) if (/^\D/.test(m[0]) || /[.,]\d{2}$/.test(m[0])) n++;
  return n;
};
/** The price's text or the words right after it say it is before tax ("HT" only in capitals). */
const netOfTax = (text: string, after: string) => {
  const t = `${text} ${after.slice(0, 20)}`;
  return (
    NET_OF_TAX.test(t.replace(/\bht\b/g, '')) &&
    !/\b(incl|inkl|including|inclusive|TTC|con\s+IVA|IVA\s+incl)/i.test(text)
  );
};
/** Between the two ends of a shown price range. */
const RANGE_SEPARATOR = /\s*[–—~]\s*|\s+-\s+|\s+(?:to|bis|à|a|até|tot|till|до)\s+/i;
const MEASURE_TEXT = /\b(pounds?|lbs?|ounces?|oz|kg|grams?|inch(es)?|cm|mm|litres?|liters?|ml|watts?)\b/i;
/** "Weight: ..." and other "Label: value" facts; a price label ("Price:", "Цена:") is fine. */
const OTHER_LABEL =
  /^\s*(?!(?:[^:]*?)(price|preis|prix|precio|prezzo|preço|cena|цена|ціна|価格|价格|價格|가격|fiyat|giá|ราคา|מחיר|السعر|ár|pris|prijs|hinta|kaina|cijena|sale|now|our))[\p{L} ]{2,24}:\s*[^\s]/iu;
const FACT_LABEL_TAGS = new Set(['td', 'th', 'dt', 'span', 'div', 'label', 'strong', 'b', 'p']);
const BRAND_FIELD =
  /^(brand|brand name|marke|marque|marca|merk|märke|marka|бренд|производитель|manufacturer|hersteller|fabricant|fabricante|ブランド|品牌|브랜드)\s*:?$/i;
/** ASCII, Arabic-Indic, Persian and full-width digits. */
const ANY_DIGIT = /[\d\u0660-\u0669\u06f0-\u06f9\uff10-\uff19]/;
/** Containers of widgets whose headings are not the page's: popovers, dialogs, status messages, hidden templates. */
const WIDGET =
  /(popover|bottom-?sheet|modal|dialog|lightbox|toast|tooltip|(success|error|status|alert|notice)[-_]?(message|msg)|atc-(success|error|status))/i;
/** Class words that hide an element until a script shows it ("overflow-hidden" is no such word). */
const HIDDEN_CLASS = /(?:^|\s)(?:hidden|hide|d-none|is-hidden|aok-hidden)(?=\s|$)/i;
const LOGO_HINT =
  /(^|[\s_-])(logo|site-?(title|name|brand|logo)|brand-?(name|logo)|masthead|navbar-brand|header)([\s_-]|$)/i;
const ADD_TO_CART =
  /(add[\s_-]?to[\s_-]?(cart|bag|basket|trolley)|addtocart|addtobag|addtobasket|buy[\s_-]?now|in den (warenkorb|einkaufswagen)|ajouter au panier|añadir a(l carrito| la cesta)|aggiungi al carrello|in winkelwagen|do koszyka|lägg i|kaufen|comprar|acheter|add to order|adicionar ao carrinho|legg i handlekurv|læg i kurv|lisää ostoskoriin|sepete ekle|加入购物车|加入購物車|立即购买|立即購買|カートに入れる|カートに追加|購入手続き|장바구니|바로\s?구매|в корзину|купить|купити|додати в кошик|do košíku|kosárba|หยิบใส่ตะกร้า|ใส่ตะกร้า|thêm vào giỏ|mua ngay|कार्ट में|أضف إلى السلة|أضف للسلة|הוספה לסל|הוסף לסל|tambah ke keranjang|masukkan keranjang|beli sekarang|себетке|adaugă în coș|adauga in cos|kosíka|košarico|ostukorvi|į krepšelį|grozā|submit-product|product-form__submit|single_add_to_cart)/i;
/** Controls of an item sold by enquiry, not by cart: classified ads, cars, made-to-order goods. */
const ENQUIRY =
  /(contact\s+(the\s+)?(seller|dealer|owner|advertiser)|make\s+an\s+offer|schedule\s+(a\s+)?(viewing|test\s+drive|visit)|book\s+a\s+(viewing|test\s+drive)|request\s+a\s+quote|enquire\s+now|inquire\s+now|reply\s+to\s+(ad|listing)|place\s+(a\s+)?bid|bid\s+now|reserve\s+(now|it|online))/i;
const OUT_OF_STOCK =
  /(out of stock|sold out|currently unavailable|no longer available|not available|unavailable|temporarily unavailable|ausverkauft|nicht (mehr )?verfügbar|nicht lieferbar|derzeit nicht|épuisé|rupture de stock|indisponible|actuellement indisponible|agotado|sin stock|no disponible|esaurito|non disponibile|attualmente non disponibile|niet (meer )?(op voorraad|leverbaar|beschikbaar)|uitverkocht|brak w magazynie|niedostępny|slutsåld|ikke på lager|utsolgt|loppuunmyyty|stokta yok|esgotado|indisponível|нет в наличии|在庫切れ|discontinued)/i;
const IN_STOCK =
  /(in stock|available now|ready to ship|auf lager|lieferbar|en stock|disponible|disponibile|op voorraad|på lager|dostępny|in magazzino|em estoque|在庫あり)/i;
const SKU_LABEL =
  /(?:\bSKU|\bArt(?:ikel)?\.?[\s-]*(?:Nr|nummer|no)\.?|\bItem\s*(?:#|No\.?|number|code)|\bArticle\s*(?:#|No\.?|number)|\bCatalog(?:ue)?\s*(?:#|No\.?|number)|\bProduct\s*(?:code|ID|#|number|no\.?)|\bStyle\s*(?:#|No\.?|number|code)|\bR[ée]f(?:[ée]rence)?\.?|\bC[óo]digo|\bCodice(?:\s+articolo)?|\bCod\.|\bNumer\s+produktu|\bProduktnummer|\bArtikelnr\.?|\bBestellnummer|\bVarenummer|\bTuotenumero|\bWebcode|\bModel\s*(?:No\.?|#)?\s*(?=[:#])|\bItem\s*model\s*number|\bASIN|\bMatnr)\s*[:#.]?\s*((?=[A-Z0-9._/-]*\d)[A-Z0-9][A-Z0-9._/-]{2,30})/i;

/**
 * The same labels as shops in other scripts and languages write them (Cyrillic, CJK, Greek, Hebrew,
 * Arabic, Thai, Vietnamese, Turkish, Central European, Nordic): a letter may not precede the label
 * (\b is ASCII-only), a colon, "#" or "№" may follow it.
 */
const SKU_LABEL_INTL =
  /(?:^|[^\p{L}])(?:Артикул|Арт\.|Код товара|Код продукта|Код:|Артикул товара|品番|商品番号|商品コード|商品编号|商品編號|货号|貨號|商品货号|Kod produktu|Kod towaru|Ürün Kodu|Stok Kodu|Kód produktu|Kód zboží|Kód tovaru|Katalogové číslo|Cikkszám|Termékkód|Mã sản phẩm|Mã SP|Mã hàng|Κωδικός προϊόντος|Κωδικός|Κωδ\.|מק"ט|מק״ט|رمز المنتج|رقم المنتج|كود المنتج|รหัสสินค้า|상품번호|상품코드|품번|Artikelnummer|Artikkelnummer|Art\.\s?nr\.?|Varenr\.?|Tuotekoodi|Numéro d'article|N° d'article|Referencia|Referência|Código de produto|Código do produto|Kode produk|Šifra|Šifra proizvoda|Cod produs)\s*[:：#№.]?\s*((?=[A-Z0-9._/-]*\d)[A-Z0-9][A-Z0-9._/-]{2,30})/iu;

const MODEL_LABEL = /^\s*(?:Model|Item\s*model)/i;

/**
 * A labelled SKU in `text`, in any of the label sets. A model number (the maker's, often written
 * in the product's name) yields to a shop's own label later in the text ("Model #: WP2000 SKU:
 * 778899"): it is the SKU only when no other label names one.
 */
function skuLabelMatch(text: string): RegExpMatchArray | null {
  let model: RegExpMatchArray | null = null;
  let rest = text;
  for (let k = 0; k < 4; k++) {
    const m = rest.match(SKU_LABEL);
    if (!m) break;
    if (!MODEL_LABEL.test(m[0])) return m;
    model ??= m;
    rest = rest.slice((m.index ?? 0) + m[0].length);
  }
  return text.match(SKU_LABEL_INTL) ?? model;
}

const SKU_CLASS =
  /sku|product-?id|productcode|product-code|item-?number|article-?number|artnr|model-number|product-?ref(?:erence)?(?![a-z])/i;
/** A data attribute's value naming the element as the product's SKU or reference. */
const SKU_DATA_VALUE = /^(?:product[-_]?)?(?:sku|ref|reference|item[-_]?number|article[-_]?number|product[-_]?code)$/i;
/** A bare SKU: letters, digits and separators with a digit; no size or range ("7-8", "40/42"), no price. */
const SKU_VALUE = /^(?=[^\s]*\d)(?!\d{1,3}(?:[-/]\d{1,3})?$)(?!\d+[.,]\d{2}$)[A-Z0-9][A-Z0-9._/-]{2,30}$/i;

function skuDataHint(el: Element): boolean {
  const a = el.attribs;
  for (const k in a) if (k.startsWith('data-') && a[k].length <= 24 && SKU_DATA_VALUE.test(a[k])) return true;
  return false;
}

const BRAND_PATH = /\/(brands?|marken?|marques?|marcas?|merken?|brand-?page)\/[^/?#]{2,}/i;

/** "codice"/"código"/"cod." alone label coupon codes as often as articles: not a SKU label. */
const BARE_CODE_LABEL = /^(c[óo]digo|codice|cod\.)(?!\s+(de\s+|do\s+)?(art|prod|ref))/i;

interface Context {
  noise: boolean;
  /** The innermost element that made the context noisy (null: not noisy). */
  noiseRoot: Element | null;
  /** Inside a related/recommended-products block (its links are similar products). */
  related: boolean;
  /** Inside a size/colour picker: prices there belong to other variants. */
  picker: boolean;
  former: boolean;
  hidden: boolean;
}

// What the class-and-id tests below say of one `${class} ${id}` text, as bits: pages repeat the
// same classes on many elements, so each distinct text is tested once per page.
const CLASS_NOISE = 1;
const CLASS_RELATED = 2;
const CLASS_PICKER = 4;
const CLASS_BREADCRUMB = 8;
const CLASS_FILTER = 16;
const CLASS_PRICE = 32;
const CLASS_SKU = 64;
const CLASS_BRAND = 128;
const CLASS_STOCK = 256;
const CLASS_CARD = 512;
/** PRICE_ATTR matches the class or the id. */
const CLASS_PRICE_ATTR = 1024;

const CLASS_RELATED_WORDS = /related|recommend|similar|also|upsell|cross-?sell/i;
const CLASS_BREADCRUMB_WORD = /breadcrumb/i;
const CLASS_FILTER_WORDS = /(filter|facet|slider|range)/i;
const CLASS_PRICE_WORD = /price/i;
const CLASS_BRAND_WORDS = /(^|[\s_-])(brand|byline\w*|manufacturer|vendor)([\s_-]|$)/i;
const CLASS_STOCK_WORDS = /availability|stock/i;
const CLASS_CARD_WORDS =
  /(^|[\s_-])(product-?(card|tile|item|grid-item)|grid-product|productcard|product-box|product-thumb|card-product)([\s_-]|$)/i;
// Every test below in one alternation (each whole, none with a back-reference, all without case):
// it matches exactly when one of them does, so a text it does not match (most) has no flags.
const ANY_CLASS_TEST = new RegExp(
  [
    NOISE,
    NOISE_LOOSE,
    CLASS_RELATED_WORDS,
    OPTION_PICKER,
    CLASS_BREADCRUMB_WORD,
    CLASS_FILTER_WORDS,
    CLASS_PRICE_WORD,
    SKU_CLASS,
    CLASS_BRAND_WORDS,
    CLASS_STOCK_WORDS,
    CLASS_CARD_WORDS,
    PRICE_ATTR,
  ]
    .map((rule) => `(?:${rule.source})`)
    .join('|'),
  'i',
);

/** What the class-and-id tests say of `${cls} ${id}` (`classId`). */
export function classFlags(classId: string, cls: string, id: string): number {
  // PRICE_ATTR has no anchors: a match in the class or the id is one in `${cls} ${id}`.
  return ANY_CLASS_TEST.test(classId) ? eachClassFlag(classId, cls, id) : 0;
}

/** classFlags without the one-alternation test first: every test run. */
export function eachClassFlag(classId: string, cls: string, id: string): number {
  let flags = 0;
  if (NOISE.test(classId) || NOISE_LOOSE.test(classId)) flags |= CLASS_NOISE;
  if (CLASS_RELATED_WORDS.test(classId)) flags |= CLASS_RELATED;
  if (OPTION_PICKER.test(classId)) flags |= CLASS_PICKER;
  if (CLASS_BREADCRUMB_WORD.test(classId)) flags |= CLASS_BREADCRUMB;
  if (CLASS_FILTER_WORDS.test(classId)) flags |= CLASS_FILTER;
  if (CLASS_PRICE_WORD.test(classId)) flags |= CLASS_PRICE;
  if (SKU_CLASS.test(classId)) flags |= CLASS_SKU;
  if (CLASS_BRAND_WORDS.test(classId)) flags |= CLASS_BRAND;
  if (CLASS_STOCK_WORDS.test(classId)) flags |= CLASS_STOCK;
  if (CLASS_CARD_WORDS.test(classId)) flags |= CLASS_CARD;
  if (PRICE_ATTR.test(cls) || PRICE_ATTR.test(id)) flags |= CLASS_PRICE_ATTR;
  return flags;
}

function attrText(el: Element): string {
  const a = el.attribs;
  let out = `${a.class ?? ''} ${a.id ?? ''} ${a.itemprop ?? ''}`;
  for (const k in a) if (k.startsWith('data-')) out += ` ${k}`;
  return out;
}

function ownText(el: Element): string {
  let t = '';
  for (const c of el.children) if (c.type === 'text') t += (c as unknown as { data: string }).data;
  return t;
}

/** The heading's text without the price elements inside it ("Bomber Jacket <span class=price>$24.99</span>"). */
function headingText(h1: Element, priceEls: readonly PriceElement[]): string {
  const inside = new Set(priceEls.filter((p) => contains(h1, p.el)).map((p) => p.el));
  if (!inside.size) return fullText(h1, 300);
  let out = '';
  const walk = (n: AnyNode) => {
    if (out.length > 300) return;
    if (n.type === 'text') out += (n as unknown as { data: string }).data;
    else if (n.type === 'tag' && !inside.has(n as Element)) for (const c of (n as Element).children) walk(c);
  };
  walk(h1);
  return out;
}

/** Text of a subtree; `sep` is put after every element (minified markup has no space between blocks). */
function fullText(el: AnyNode, limit = 400, sep = ''): string {
  let out = '';
  // Bounded by nodes too: a tag left open by sloppy HTML can swallow the rest of the page.
  let budget = 3000;
  const walk = (n: AnyNode) => {
    if (out.length > limit || --budget < 0) return;
    if (n.type === 'text') out += (n as unknown as { data: string }).data;
    else if (n.type === 'tag') {
      const e = n as Element;
      if (e.name === 'script' || e.name === 'style' || e.name === 'noscript') return;
      for (const c of e.children) walk(c);
      out += sep;
    }
  };
  walk(el);
  return out.replace(/\s+/g, ' ').trim();
}

/** A part of a price box classed as the former price ("price-old", "was-price", "compare-at"). */
const FORMER_CHILD =
  /(^|[\s_-])(old|was|regular|compare|compare-at|strike|crossed|before|rrp|msrp|original|previous)([\s_-]|$)/i;

/**
 * A price element's text twice in one walk: all of it, and as shown to pay (struck-through
 * s/del/strike parts left out, a superscript after digits read as cents: "$25<sup>99</sup>").
 */
function priceTexts(el: Element, limit = 120): { full: string; shown: string } {
  let full = '';
  let shown = '';
  let budget = 3000;
  const walk = (n: AnyNode, struck: boolean) => {
    if (full.length > limit || --budget < 0) return;
    if (n.type === 'text') {
      const data = (n as unknown as { data: string }).data;
      full += data;
      if (!struck) shown += data;
    } else if (n.type === 'tag') {
      const e = n as Element;
      const name = e.name;
      if (name === 'script' || name === 'style' || name === 'noscript') return;
      const inner =
        struck ||
        name === 's' ||
        name === 'del' ||
        name === 'strike' ||
        (e !== el && !!e.attribs.class && FORMER_CHILD.test(e.attribs.class));
      if (name === 'sup' && !inner && /\d$/.test(shown) && /^\s*\d{2}\s*$/.test(fullText(e, 8))) shown += '.';
      for (const c of e.children) walk(c, inner);
    }
  };
  walk(el, false);
  const squash = (t: string) => t.replace(/\s+/g, ' ').trim();
  return { full: squash(full), shown: squash(shown) };
}

function ancestors(el: Element): Element[] {
  const chain: Element[] = [];
  let p: AnyNode | null = el;
  while (p && p.type === 'tag' && chain.length < 200) {
    chain.push(p as Element);
    p = (p as Element).parent as AnyNode | null;
  }
  return chain;
}

function lowestCommonAncestor(a: Element, b: Element): Element | null {
  const setA = new Set(ancestors(a));
  for (const x of ancestors(b)) if (setA.has(x)) return x;
  return null;
}

function contains(container: Element, el: Element): boolean {
  let p: AnyNode | null = el;
  for (let i = 0; p && i < 200; i++) {
    if (p === container) return true;
    p = p.parent as AnyNode | null;
  }
  return false;
}

/** Text before (back to the previous price) and after an element, within its first wordy ancestor. */
export function labelAround(el: Element, own: string): { before: string; after: string } | null {
  let container = el.parent as Element | null;
  for (let up = 0; container && container.type === 'tag' && up < 3; up++) {
    const text = fullText(container, 240);
    if (text.length > own.length + 2) {
      const at = text.indexOf(own);
      if (at < 0) return null;
      let before = text.slice(Math.max(0, at - 80), at);
      let cut = 0;
      // Back to the end of the price before: "Was $55.99 $43.99" labels only the first.
      for (const m of before.matchAll(PRICE_LIKE))
        if (/^\D/.test(m[0]) || /[.,]\d{2}$/.test(m[0])) cut = m.index + m[0].length;
      if (cut) before = before.slice(cut);
      return { before, after: text.slice(at + own.length, at + own.length + 30) };
    }
    container = container.parent as Element | null;
  }
  return null;
}

/**
 * Text of the blocks after `start` (its following siblings, then its ancestors' following
 * siblings), leaving out page furniture and related-product blocks; bounded in length and nodes.
 */
function followingText(start: Element, limit: number): string {
  let out = '';
  let node: Element | null = start;
  let visited = 0;
  for (let up = 0; node && up < 6 && out.length < limit; up++) {
    for (let sib = node.nextSibling; sib && out.length < limit && visited < 80; sib = sib.nextSibling) {
      if (sib.type !== 'tag') continue;
      visited++;
      const e = sib as Element;
      if (/^(footer|nav|header|aside|script|style|noscript|template|form|select)$/.test(e.name)) continue;
      const classId = `${e.attribs.class ?? ''} ${e.attribs.id ?? ''}`;
      if (NOISE.test(classId) || NOISE_LOOSE.test(classId) || /related|recommend|similar|also/i.test(classId)) continue;
      out += ` ${fullText(e, limit - out.length, ' ')}`;
    }
    const parent = node.parent as Element | null;
    node = parent && parent.type === 'tag' && parent.name !== 'body' && parent.name !== 'html' ? parent : null;
  }
  return out;
}

/** Where a product's plain-text price sits when no buy button fixes the area: the heading's block. */
function nearHeading(h1: Element | null, button: Element | null): Element | null {
  const start = h1 ?? button;
  let p = start?.parent as Element | null;
  // The last block below body: a short page's heading block climbs to body, and is still the item's.
  let block: Element | null = null;
  for (let up = 0; p && p.type === 'tag' && up < 2 && p.name !== 'body'; up++) {
    block = p;
    if (fullText(p, 400).length > 200) break;
    p = p.parent as Element | null;
  }
  return p && p.type === 'tag' && p.name !== 'body' && p.name !== 'html' ? p : block;
}

function isLogoHeading(h: Element, pageUrl: string): boolean {
  const parent = h.parent as Element | null;
  const hint = `${h.attribs.class ?? ''} ${h.attribs.id ?? ''} ${parent?.type === 'tag' ? `${parent.attribs.class ?? ''} ${parent.attribs.id ?? ''}` : ''}`;
  if (LOGO_HINT.test(hint.replace(/header/gi, ''))) return true;
  const text = fullText(h, 120);
  const hasImage = (n: AnyNode): boolean =>
    n.type === 'tag' &&
    ((n as Element).name === 'img' || (n as Element).name === 'svg' || (n as Element).children.some(hasImage));
  if (!text) return hasImage(h);
  // The shop's name linking to the home page.
  const links = (function collect(n: AnyNode, out: Element[]): Element[] {
    if (n.type === 'tag') {
      if ((n as Element).name === 'a') out.push(n as Element);
      else for (const c of (n as Element).children) collect(c, out);
    }
    return out;
  })(h, []);
  if (links.length === 1 && fullText(links[0], 120) === text) {
    const href = absoluteUrl(links[0].attribs.href, pageUrl);
    try {
      if (
        href &&
        new URL(href).pathname.replace(/\/(index\.\w+)?$/, '') === '' &&
        new URL(href).host === new URL(pageUrl).host
      )
        return true;
    } catch {
      return false;
    }
  }
  return false;
}

/** Short texts inside `scope` that carry their own currency mark: the page's plain-text prices. */
/** Currencies whose only mark is one Latin letter ("L" lempira, "K" kyat, "R" rand ...). */
const ONE_LETTER_CURRENCY = /(?:^|[^\p{L}])[LKRQPDG](?:[^\p{L}]|$)/u;

/**
 * Whether a plain-text amount's currency is read from a lone letter the page gives no reason to
 * take as money ("1.7 L" a volume, "4 K" a resolution): only the page's or country's currency
 * makes "L 250" lempiras.
 */
function loneLetterMeasure(
  text: string,
  currency: string,
  hints: { currency: string | null; countryCode: string | null },
): boolean {
  if (!ONE_LETTER_CURRENCY.test(text)) return false;
  const expected = hints.currency ?? (hints.countryCode ? COUNTRY_CURRENCY.get(hints.countryCode.toLowerCase()) : null);
  if (expected === currency) return false;
  // Another mark in the text ("L 250 HNL", "$") decided the currency, not the letter.
  return !/[^\p{L}\p{N}\s.,'’-]|\b[A-Z]{3}\b/u.test(text.replace(/[LKRQPDG]/g, ''));
}

/** An ISO code an element's data attribute gives its price in (data-currency, data-currency-code). */
function currencyAttr(el: Element): string | null {
  const a = el.attribs;
  const v = a['data-currency'] ?? a['data-currency-code'] ?? a['data-price-currency'];
  return v && /^[A-Za-z]{3}$/.test(v.trim()) ? v.trim().toUpperCase() : null;
}

function plainTextPrices(
  scope: Element | null,
  hints: { currency: string | null; countryCode: string | null },
  h1Order: number,
  orderEnd: number,
): PriceCandidate[] {
  if (!scope) return [];
  const found: PriceCandidate[] = [];
  let budget = 1500;
  let parsed = 0;
  let order = Math.max(h1Order, 0);
  const walk = (el: Element, former: boolean) => {
    if (--budget < 0 || found.length >= 8 || parsed > 40) return;
    const name = el.name;
    // The product's heading names it ("Kettle 1.7 L"), never its price.
    if (
      name === 'script' ||
      name === 'style' ||
      name === 'noscript' ||
      name === 'select' ||
      name === 'option' ||
      name === 'h1'
    )
      return;
    const classId = `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`;
    if (NOISE.test(classId) || NOISE_LOOSE.test(classId)) return;
    const struck = former || name === 's' || name === 'del' || name === 'strike';
    order++;
    const own = ownText(el).replace(/\s+/g, ' ').trim();
    if (own && ANY_DIGIT.test(own) && own.length <= 60) {
      const text = fullText(el, 80);
      parsed++;
      // The currency must be written in the text (hints only say which one an ambiguous mark is),
      // and the text is no measure ("Weight: 3.5 pounds") or other labelled fact.
      // A price shown as such is a few words at most, not a sentence that mentions one.
      const words = text.match(/\p{L}{2,}/gu)?.length ?? 0;
      if (words <= 4 && !MEASURE_TEXT.test(text) && !OTHER_LABEL.test(text) && parsePrice(text, {}).currency) {
        const price = parsePrice(text, hints);
        const label = labelAround(el, text);
        const demoted =
          label &&
          (INSTALMENT_LABEL.test(label.before) ||
            COUPON_LABEL.test(label.before) ||
            UNIT_AFTER_PRICE.test(label.after) ||
            netOfTax(text, label.after));
        const wasLabel = !!label && FORMER_LABEL.test(label.before);
        if (
          price.amount != null &&
          price.amount > 0 &&
          !/%/.test(text) &&
          !(price.currency && loneLetterMeasure(text, price.currency, hints))
        ) {
          found.push({
            amount: price.amount,
            currency: price.currency,
            text,
            score: demoted ? -2 : 3 - found.filter((f) => !f.former).length,
            order: orderEnd + order,
            former: struck || wasLabel,
            inMain: true,
            noise: false,
            composite: false,
            hidden: false,
            plain: true,
            el,
          });
        }
      }
    }
    for (const c of el.children) if (c.type === 'tag') walk(c as Element, struck);
  };
  walk(scope, false);
  return found;
}

/** Every element under `root` in document order (a pre-order walk, as the parse lists them). */
function elementsUnder(root: AnyNode): Element[] {
  const out: Element[] = [];
  const walk = (n: AnyNode) => {
    for (const c of (n as unknown as { children?: AnyNode[] }).children ?? [])
      if (c.type === 'tag' || c.type === 'script' || c.type === 'style') {
        out.push(c as Element);
        walk(c);
      }
  };
  walk(root);
  return out;
}

/**
 * The DOM walk: every element below the root in document order (its pre-order), each in the
 * context its parent made, without going through the text between them. `visit` reads one
 * element and says the context for its children (null: not walked into). The path holds the
 * element's ancestors with the context each gave its children (null also for one 120 levels
 * down) and their depth; the document root is not a tag. A function of its own, small enough to
 * be optimised (the reader around it is not).
 */
function walkElements(
  list: readonly Element[],
  root: AnyNode,
  visit: (el: Element, ctx: Context, depth: number) => Context | null,
): void {
  const top: Context = { noise: false, noiseRoot: null, related: false, picker: false, former: false, hidden: false };
  const pathEls: AnyNode[] = [];
  const pathCtx: Array<Context | null> = [];
  const pathDepth: number[] = [];
  let n = 0;
  for (let i = 0; i < list.length; i++) {
    const el = list[i];
    const parent = el.parent;
    while (n > 0 && pathEls[n - 1] !== parent) n--;
    let ctx: Context | null;
    let depth: number;
    if (n > 0) {
      ctx = pathCtx[n - 1];
      depth = pathDepth[n - 1] + 1;
    } else {
      ctx = parent === root ? top : null;
      depth = 0;
    }
    const next = ctx === null ? null : visit(el, ctx, depth);
    pathEls[n] = el;
    pathCtx[n] = next !== null && depth < 120 ? next : null;
    pathDepth[n] = depth;
    n++;
  }
}

/** What one element of the walk is asked about, read once and shared by the field notes below. */
interface Seen {
  el: Element;
  name: string;
  /** Position among the walked elements (document order). */
  order: number;
  /** The context its parent made. */
  ctx: Context;
  cls: string;
  id: string;
  itemprop: string;
  style: string | undefined;
  hiddenAttr: boolean;
  ariaLabel: string | undefined;
  role: string | undefined;
  /** The element has at least one data- attribute. */
  dataKey: boolean;
  /** What the class-and-id tests say of it (CLASS_* bits). */
  flags: number;
  /** The context it makes for its children. */
  next: Context;
}

/** A price element found by the walk, in the context it sits in. */
interface PriceElement {
  el: Element;
  ctx: Context;
  order: number;
  /** How strongly the markup names it a price: itemprop=price 3, a price class 2, else 1. */
  strength: number;
}

/** What the walk collects for the field readers after it, in document order. */
interface Gathered {
  /** Elements walked (the plain-text prices are ordered after them). */
  order: number;
  priceEls: PriceElement[];
  buttons: Element[];
  buttonOrder: number;
  h1s: Element[];
  h1Orders: Map<Element, number>;
  subheadings: Element[];
  skuTexts: Array<{ el: Element; text: string }>;
  dataSkus: Array<{ el: Element; value: string; order: number }>;
  brandTexts: string[];
  /** Values of "Brand:" rows (th/td, dt/dd, label + value): used when nothing else names one. */
  labelledBrands: string[];
  brandLinks: Array<{ el: Element; order: number }>;
  imgs: Array<{ el: Element; order: number; noise: boolean }>;
  relatedLinks: string[];
  stockEls: Element[];
  breadcrumbLinks: string[];
  productCardCount: number;
  enquiry: boolean;
}

/** The product area the field readers look in, found from the walk's headings and buy buttons. */
interface ProductArea {
  /** The smallest element holding both the product's heading and its buy button. */
  main: Element | null;
  h1: Element | null;
  /** The heading's walk order; -1 without one. */
  h1Order: number;
  button: Element | null;
}

type PriceHints = { currency: string | null; countryCode: string | null };

/**
 * One pass over the page's elements (`list`, in document order), each read in the context its
 * ancestors make (noise, related, picker, struck through, hidden) for what every field needs.
 */
function gatherElements($: CheerioAPI, pageUrl: string, list: readonly Element[], root: AnyNode): Gathered {
  const g: Gathered = {
    order: 0,
    priceEls: [],
    buttons: [],
    buttonOrder: -1,
    h1s: [],
    h1Orders: new Map(),
    subheadings: [],
    skuTexts: [],
    dataSkus: [],
    brandTexts: [],
    labelledBrands: [],
    brandLinks: [],
    imgs: [],
    relatedLinks: [],
    stockEls: [],
    breadcrumbLinks: [],
    productCardCount: 0,
    enquiry: false,
  };
  // Pages repeat the same classes on many elements: each distinct text is tested once per page,
  // keyed by the class alone when there is no id (the common case: no joined string).
  const flagsByClass = new Map<string, number>();
  const flagsByClassId = new Map<string, number>();
  const flagsOf = (cls: string, id: string): number => {
    const known = id === '' ? flagsByClass.get(cls) : flagsByClassId.get(`${cls} ${id}`);
    if (known !== undefined) return known;
    const flags = classFlags(`${cls} ${id}`, cls, id);
    if (id === '') flagsByClass.set(cls, flags);
    else flagsByClassId.set(`${cls} ${id}`, flags);
    return flags;
  };
  /** One element of the walk in its parent's context: the context for its children, or null when skipped. */
  const visit = (el: Element, ctx: Context, depth: number): Context | null => {
    if (depth > 120 || el.type !== 'tag') return null;
    const name = el.name;
    if (name === 'script' || name === 'style' || name === 'noscript' || name === 'template' || name === 'svg')
      return null;
    g.order++;
    const seen = see(el, name, g.order, ctx);
    // Most elements have no class or id: their class tests are all false, so skip them.
    if (seen.cls !== '' || seen.id !== '') seen.flags = flagsOf(seen.cls, seen.id);
    const next = childContext(seen);
    seen.next = next;
    notePageParts(g, $, seen, pageUrl);
    notePrice(g, seen);
    noteSku(g, seen);
    noteBrand(g, seen);
    if ((seen.flags & CLASS_STOCK) !== 0 && !next.noise && g.stockEls.length < 40) g.stockEls.push(el);
    if (name === 'img') g.imgs.push({ el, order: g.order, noise: next.noise });
    return next;
  };
  walkElements(list, root, visit);
  return g;
}

/**
 * One element as the walk sees it, with the attributes every element is asked for read in one
 * pass over its own (attribute objects come in many shapes: a lookup by name, mostly of an
 * absent one, costs more). One object per element: the walk's hot path. Its flags and child
 * context are filled in next.
 */
function see(el: Element, name: string, order: number, ctx: Context): Seen {
  const a = el.attribs;
  let cls = '';
  let id = '';
  let itemprop = '';
  let style: string | undefined;
  let hiddenAttr = false;
  let ariaLabel: string | undefined;
  let role: string | undefined;
  let dataKey = false;
  for (const k in a) {
    switch (k) {
      case 'class':
        cls = a[k];
        break;
      case 'id':
        id = a[k];
        break;
      case 'itemprop':
        itemprop = a[k];
        break;
      case 'style':
        style = a[k];
        break;
      case 'hidden':
        hiddenAttr = true;
        break;
      case 'aria-label':
        ariaLabel = a[k];
        break;
      case 'role':
        role = a[k];
        break;
      default:
        if (k.startsWith('data-')) dataKey = true;
    }
  }
  return { el, name, order, ctx, cls, id, itemprop, style, hiddenAttr, ariaLabel, role, dataKey, flags: 0, next: ctx };
}

/** The context an element makes for its children: its parent's, plus what its own tag, classes and style add. */
function childContext(seen: Seen): Context {
  const { ctx, name, style, flags } = seen;
  const hasClassId = seen.cls !== '' || seen.id !== '';
  const ownNoise =
    (hasClassId && name !== 'body' && name !== 'html' && name !== 'main' && (flags & CLASS_NOISE) !== 0) ||
    name === 'footer' ||
    name === 'nav' ||
    name === 'header' ||
    name === 'aside';
  const noise = ctx.noise || ownNoise;
  const related = ctx.related || (hasClassId && name !== 'body' && (flags & CLASS_RELATED) !== 0);
  const picker = ctx.picker || (hasClassId && name !== 'body' && (flags & CLASS_PICKER) !== 0);
  const former =
    ctx.former ||
    name === 's' ||
    name === 'del' ||
    name === 'strike' ||
    (style !== undefined && /line-through/i.test(style));
  const hidden = ctx.hidden || seen.hiddenAttr || (style !== undefined && /display:\s*none/i.test(style));
  // Contexts are never changed once made: an element that adds nothing shares its parent's.
  return !ownNoise &&
    noise === ctx.noise &&
    related === ctx.related &&
    picker === ctx.picker &&
    former === ctx.former &&
    hidden === ctx.hidden
    ? ctx
    : { noise, noiseRoot: ownNoise ? seen.el : ctx.noiseRoot, related, picker, former, hidden };
}

/** Breadcrumbs, headings, the buy button, related-product links and product cards. */
function notePageParts(g: Gathered, $: CheerioAPI, seen: Seen, pageUrl: string): void {
  const { el, name, flags, next } = seen;
  if ((flags & CLASS_BREADCRUMB) !== 0 || (seen.ariaLabel !== undefined && /breadcrumb/i.test(seen.ariaLabel))) {
    $(el)
      .find('a, [itemprop=name]')
      .each((_, a) => {
        const t = cleanText($(a).text());
        if (t && t.length < 80 && !g.breadcrumbLinks.includes(t)) g.breadcrumbLinks.push(t);
      });
  }
  if ((name === 'h2' || name === 'h3' || name === 'h4') && !next.noise && g.subheadings.length < 200)
    g.subheadings.push(el);
  if (name === 'h1' && !next.hidden) {
    g.h1s.push(el);
    g.h1Orders.set(el, seen.order);
  }
  // Only the first buy control is used: later links need no test.
  if (
    !g.buttons.length &&
    (name === 'button' || name === 'input' || name === 'a' || seen.role === 'button') &&
    !next.noise
  ) {
    const label = `${attrText(el)} ${el.attribs.value ?? ''} ${el.attribs['aria-label'] ?? ''} ${el.attribs.name ?? ''}`;
    const text = name === 'input' ? (el.attribs.value ?? '') : fullText(el, 80);
    if (ADD_TO_CART.test(text) || ADD_TO_CART.test(label)) {
      g.buttons.push(el);
      g.buttonOrder = seen.order;
    } else if (!g.enquiry && ENQUIRY.test(text)) g.enquiry = true;
  }
  if (next.related && name === 'a') {
    const href = absoluteUrl(el.attribs.href, pageUrl);
    if (href && href !== pageUrl && !g.relatedLinks.includes(href) && g.relatedLinks.length < 50)
      g.relatedLinks.push(href);
  }
  if ((flags & CLASS_CARD) !== 0) g.productCardCount++;
}

/** An element the markup names as a price (class, id, itemprop or data- attribute), or a bare struck-through amount. */
function notePrice(g: Gathered, seen: Seen): void {
  const { el, name, flags, itemprop, ctx, next } = seen;
  // attrText's parts tested one by one (no joined string per element): PRICE_ATTR's words hold
  // no space, so it matches the joined text exactly when it matches one part.
  let priceAttr = (flags & CLASS_PRICE_ATTR) !== 0 || PRICE_ATTR.test(itemprop);
  if (seen.dataKey && !priceAttr)
    for (const k in el.attribs) {
      if (k.startsWith('data-') && PRICE_ATTR.test(k)) {
        priceAttr = true;
        break;
      }
    }
  if (
    priceAttr &&
    name !== 'meta' &&
    name !== 'link' &&
    !(name === 'input' && el.attribs.type === 'hidden') &&
    (flags & CLASS_FILTER) === 0
  ) {
    const strength = itemprop === 'price' ? 3 : (flags & CLASS_PRICE) !== 0 ? 2 : 1;
    g.priceEls.push({ el, ctx: next, order: seen.order, strength });
  } else if ((name === 's' || name === 'del' || name === 'strike') && !next.noise && !ctx.former)
    // A bare struck-through amount is the regular price beside the current one.
    g.priceEls.push({ el, ctx: next, order: seen.order, strength: 1 });
}

/** SKU texts (sku-classed or itemprop elements, an empty data-sku's element) and SKU values (buy-form fields, data-sku). */
function noteSku(g: Gathered, seen: Seen): void {
  const { el, name, flags, cls, id, itemprop, next } = seen;
  // ' data-' occurs in attrText when a data- attribute exists or 'data-' is inside class, id or
  // itemprop: the same test without the joined string in the common case.
  const hasData =
    seen.dataKey ||
    ((cls.includes('data-') || id.includes('data-') || itemprop.includes('data-')) &&
      `${cls} ${id} ${itemprop}`.includes(' data-'));
  // itemprop sku/productID also counts outside an itemscope ("Ref : <span itemprop=productID>"),
  // and so does an element a data attribute names as the product's reference or SKU.
  if (
    ((flags & CLASS_SKU) !== 0 ||
      itemprop === 'sku' ||
      itemprop === 'productID' ||
      (name === 'meta' && el.attribs.name === 'sku') ||
      (hasData && skuDataHint(el))) &&
    !next.noise
  ) {
    // <meta itemprop="sku" content="...">, and any element with a content attribute
    // (<span itemprop="sku" content="...">), states it in content.
    const content = el.attribs.content?.trim();
    const t = name === 'meta' ? (content ?? '') : content || fullText(el, 120);
    if (t) g.skuTexts.push({ el, text: t });
  }
  // A buy form's field carrying the SKU (<input type="hidden" name="sku" value="...">).
  if (name === 'input' && !next.noise && !next.related && g.dataSkus.length < 20) {
    const v = el.attribs.value?.trim();
    if (v && /^(?:product[_-]?)?sku$/i.test(el.attribs.name ?? '') && SKU_VALUE.test(v))
      g.dataSkus.push({ el, value: v, order: seen.order });
  }
  // data-sku="..." / data-product-sku="..." on the product's form or container.
  if (hasData && !next.noise && !next.related && g.dataSkus.length < 20) {
    const v = el.attribs['data-sku'] ?? el.attribs['data-product-sku'] ?? el.attribs['data-product_sku'];
    if (v?.trim() && SKU_VALUE.test(v.trim())) g.dataSkus.push({ el, value: v.trim(), order: seen.order });
    // An empty one marks the element whose text is the SKU (BigCommerce: <dd data-product-sku>).
    else if (v !== undefined && !v.trim()) g.skuTexts.push({ el, text: fullText(el, 120) });
  }
}

/** Brand texts (itemprop=brand, brand-classed elements), "Brand:" rows and links to a brand's page. */
function noteBrand(g: Gathered, seen: Seen): void {
  const { el, name, flags, itemprop, next } = seen;
  // Cheap test first: the label is the element's first (text) child.
  const firstChild = el.children[0];
  if (
    firstChild?.type === 'text' &&
    FACT_LABEL_TAGS.has(name) &&
    g.labelledBrands.length < 3 &&
    el.children.length <= 3 &&
    (firstChild as unknown as { data: string }).data.length <= 200 &&
    !next.noise
  ) {
    const own = (firstChild as unknown as { data: string }).data.trim();
    if (own.length <= 30 && BRAND_FIELD.test(own)) {
      // "<p>Brand: <a>Acme</a></p>": the value is the rest of the element; "<th>Brand</th>
      // <td>Acme</td>": the next element.
      let value = '';
      if (el.children.length > 1) value = fullText(el, 120).slice(fullText(firstChild, 60).length).trim();
      else {
        let sib = el.nextSibling;
        while (sib && sib.type !== 'tag') sib = sib.nextSibling;
        value = sib ? fullText(sib, 80) : '';
      }
      if (value && value.length <= 60) g.labelledBrands.push(value);
    }
  }
  // itemprop="brand" outside a Product scope (<meta itemprop="brand" content="Acme">).
  if (itemprop === 'brand' && !next.noise && g.brandTexts.length < 10) {
    const t = el.attribs.content?.trim() || (el.attribs.itemscope === undefined ? fullText(el, 120) : '');
    if (t && t.length < 80) g.brandTexts.push(t);
  }
  if ((flags & CLASS_BRAND) !== 0 && !next.noise) {
    const t = fullText(el, 120);
    if (t && t.length < 80) g.brandTexts.push(t);
  }
  // A link to the brand's page ("/brand/calvin-klein/"): its title, image alt or text.
  if (
    name === 'a' &&
    !next.noise &&
    !next.related &&
    g.brandLinks.length < 10 &&
    BRAND_PATH.test(el.attribs.href ?? '')
  )
    g.brandLinks.push({ el, order: seen.order });
}

/**
 * Blocks headed "Customers also bought", "You may also like"...: other products' prices,
 * whatever their classes say. The heading's container, or (when that container also holds the
 * page's h1) the blocks after the heading. Found after the one walk.
 */
function relatedBlocksOf(subheadings: readonly Element[], h1s: readonly Element[]): Element[] {
  const relatedBlocks: Element[] = [];
  for (const h of subheadings) {
    if (relatedBlocks.length >= 20) break;
    const t = fullText(h, 100);
    if (!t || t.length > 90 || !RELATED_HEADING.test(t)) continue;
    const parent = h.parent as Element | null;
    if (parent?.type !== 'tag' || parent.name === 'body' || parent.name === 'html') continue;
    if (!h1s.some((x) => contains(parent, x))) relatedBlocks.push(parent);
    else
      for (let sib = h.nextSibling, k = 0; sib && k < 6; sib = sib.nextSibling) {
        if (sib.type !== 'tag') continue;
        relatedBlocks.push(sib as Element);
        k++;
      }
  }
  return relatedBlocks;
}

/**
 * A noisy-classed block that holds one of the page's own headings (not the logo's) wraps the
 * product ("header-wrapper" around the whole page, an <aside> holding the item's heading and
 * price): its prices are the page's, not a menu's or a carousel's. Prices in related blocks stay noise.
 */
function unnoiseWrappedPrices(g: Gathered, pageUrl: string): void {
  const headings = g.h1s.filter((h) => !isLogoHeading(h, pageUrl));
  if (!headings.length) return;
  const wraps = new Map<Element, boolean>();
  for (const p of g.priceEls) {
    const root = p.ctx.noiseRoot;
    if (!p.ctx.noise || p.ctx.related || !root) continue;
    let holds = wraps.get(root);
    if (holds === undefined) {
      holds = headings.some((h) => contains(root, h));
      wraps.set(root, holds);
    }
    if (holds) p.ctx = { ...p.ctx, noise: false, noiseRoot: null };
  }
}

/**
 * The product's heading among the page's h1s. The shop's logo is often the first h1 (an image,
 * or the shop's name linking home): never the product's heading. Nor a widget's heading: a
 * popover, dialog or bottom sheet, a cart status message ("Adding to cart...", "Added"), a
 * hidden template. One outside loosely-noisy blocks is preferred.
 */
function productHeading(h1s: readonly Element[], pageUrl: string): Element | null {
  const inWidget = (h: Element) =>
    [h, ...ancestors(h)].some(
      (a) =>
        a.name !== 'body' &&
        a.name !== 'html' &&
        (WIDGET.test(`${a.attribs.class ?? ''} ${a.attribs.id ?? ''}`) || HIDDEN_CLASS.test(a.attribs.class ?? '')),
    );
  const headings = h1s.filter((h) => !isLogoHeading(h, pageUrl) && !inWidget(h));
  return (
    headings.find(
      (h) => !ancestors(h).some((a) => NOISE_LOOSE.test(`${a.attribs.class ?? ''} ${a.attribs.id ?? ''}`)),
    ) ??
    headings[0] ??
    null
  );
}

/** The heading, the first buy button and the smallest element holding both (never body or html). */
function productArea(g: Gathered, pageUrl: string): ProductArea {
  const h1 = productHeading(g.h1s, pageUrl);
  const h1Order = h1 ? (g.h1Orders.get(h1) ?? -1) : -1;
  const button = g.buttons[0] ?? null;
  let main: Element | null = h1 && button ? lowestCommonAncestor(h1, button) : null;
  if (main && (main.name === 'body' || main.name === 'html')) main = null;
  return { main, h1, h1Order, button };
}

/** A price element scored before its text is parsed. */
interface ScoredPrice {
  el: Element;
  ctx: Context;
  o: number;
  text: string;
  score: number;
  former: boolean;
  inMain: boolean;
  /** In a noisy block: kept apart for the learned scorer only. */
  noise: boolean;
  addon: boolean;
}

const CHECKBOX_CLASS = /(^|[\s_-])checkbox([\s_-]|$)/i;

/** A checkbox's label (or a checkbox-classed box) a few levels up: an optional extra, not the product. */
function inCheckboxLabel(el: Element): boolean {
  let p = el.parent as Element | null;
  for (let i = 0; p && p.type === 'tag' && i < 6; i++, p = p.parent as Element | null) {
    if (CHECKBOX_CLASS.test(p.attribs.class ?? '')) return true;
    if (p.name === 'label') return elementsUnder(p).some((e) => e.name === 'input' && e.attribs.type === 'checkbox');
  }
  return false;
}

/** Noisy price elements read at most (carousels and menus can hold hundreds). */
const MAX_NOISY_PRICES = 40;

/**
 * Every price element outside noisy blocks, and the noisy ones nearest the product's heading (or
 * buy control): a noisy block's prices are candidates for the learned scorer, and the one of the
 * product (a sale price in a block a theme classed as noise) sits near its heading, not first in
 * document order.
 */
function nearestNoisy(priceEls: readonly PriceElement[], area: ProductArea): readonly PriceElement[] {
  const noisy = priceEls.filter((p) => p.ctx.noise);
  if (noisy.length <= MAX_NOISY_PRICES) return priceEls;
  const anchor = area.h1Order >= 0 ? area.h1Order : -1;
  const kept = new Set(
    (anchor >= 0 ? [...noisy].sort((a, b) => Math.abs(a.order - anchor) - Math.abs(b.order - anchor)) : noisy).slice(
      0,
      MAX_NOISY_PRICES,
    ),
  );
  return priceEls.filter((p) => !p.ctx.noise || kept.has(p));
}

/**
 * The price elements as the shopper reads them, scored: their class words, the labels around
 * them ("Was", "4 payments of", "with code", "/ 100 g"), tax, where they sit (the product area,
 * after the heading, a picker, hidden). Prices inside related blocks are never chosen and never
 * confirm markup: they are left out.
 */
function scorePriceElements(priceEls: readonly PriceElement[], area: ProductArea): ScoredPrice[] {
  const { main, h1, h1Order } = area;
  const scored: ScoredPrice[] = [];
  for (const { el, ctx, order: o, strength } of nearestNoisy(priceEls, area)) {
    const raw =
      el.attribs.content ?? el.attribs['data-price'] ?? el.attribs['data-price-amount'] ?? el.attribs.value ?? null;
    const texts = priceTexts(el);
    let text = texts.full;
    // What the shopper reads as the price: struck-through parts left out, superscript cents
    // ("$25<sup>99</sup>") as decimals.
    let struckOnly = false;
    if (texts.shown !== texts.full) {
      if (/\d/.test(texts.shown)) text = texts.shown;
      else struckOnly = true;
    }
    if (raw && /\d/.test(raw) && (!/\d/.test(text) || text.length > 60)) text = raw;
    if (!text || text.length > 80 || !/\d/.test(text)) continue;
    const classId = `${el.attribs.class ?? ''} ${el.attribs.id ?? ''} ${Object.keys(el.attribs)
      .filter((k) => k.startsWith('data-'))
      .join(' ')}`.replace(/([a-z])([A-Z])/g, '$1-$2');
    let former = ctx.former || struckOnly || PRICE_FORMER.test(classId);
    const label = !former && !ctx.picker ? labelAround(el, text) : null;
    if (label && FORMER_LABEL.test(label.before)) former = true;
    const inMain = main ? contains(main, el) : false;
    let score = strength;
    if (PRICE_CURRENT.test(classId)) score += 2;
    if (PRICE_NEGATIVE.test(classId)) score -= 3;
    if (former) score -= 5;
    if (label) {
      if (INSTALMENT_LABEL.test(label.before) || /^\s*(x|×|\/\s*mo|per\s+month|a\s+month|monthly)\b/i.test(label.after))
        score -= 6;
      if (COUPON_LABEL.test(label.before)) score -= 5;
      if (UNIT_AFTER_PRICE.test(label.after)) score -= 4;
    }
    if (netOfTax(text, label?.after ?? '')) score -= 4;
    const addon = inCheckboxLabel(el);
    if (addon) score -= 5;
    if (ctx.hidden) score -= 2;
    if (ctx.picker) score -= 4;
    if (inMain) score += 4;
    if (/\/|per\s|pro\s|\bea\b|\/\s*(kg|g|l|ml|m|m2|m²|st)/i.test(text)) score -= 3;
    if (/^\s*(from|ab|à partir de|desde|a partire da|vanaf|od)\b/i.test(text)) score -= 1;
    if (/%/.test(text)) score -= 4;
    // A box holding several prices ("Regular price $55.99 $43.99") yields to its parts.
    if (moneyCount(text) > 1) score -= 3;
    if (h1 && !inMain && o > h1Order && o - h1Order < 400) score += 1;
    scored.push({ el, ctx, o, text, score, former, inMain, noise: ctx.noise, addon });
  }
  return scored;
}

/**
 * The page's price candidates and every amount it displays. Score first, parse after: the price
 * parser is the costly part, so only the most likely candidates (and every distinct text only
 * once) are parsed. No price element scored: plain-text prices (a currency mark in the text
 * itself) in the product area, nearest after the heading first.
 */
function readPriceCandidates(
  g: Gathered,
  area: ProductArea,
  hints: PriceHints,
): { priceCandidates: PriceCandidate[]; displayedAmounts: Set<number>; noisePrices: PriceCandidate[] } {
  const parsedByText = new Map<string, ReturnType<typeof parsePrice>>();
  const priceCandidates: PriceCandidate[] = [];
  const noisePrices: PriceCandidate[] = [];
  const displayedAmounts = new Set<number>();
  const all = scorePriceElements(g.priceEls, area);
  const scored = all.filter((c) => !c.noise).sort((a, b) => b.score - a.score || a.o - b.o);
  // Noisy blocks' prices after the others, parsed only while the budget lasts (a few).
  const noisy = all.filter((c) => c.noise).sort((a, b) => b.score - a.score || a.o - b.o);
  for (const c of [...scored, ...noisy.slice(0, 16)]) {
    // The price element (or its parent) naming its currency (data-currency="NZD") says what "$" is.
    const code = currencyAttr(c.el) ?? (c.el.parent?.type === 'tag' ? currencyAttr(c.el.parent as Element) : null);
    const key = code ? `${code}|${c.text}` : c.text;
    let parsed = parsedByText.get(key);
    if (!parsed) {
      if (parsedByText.size >= MAX_PARSED_PRICE_TEXTS) continue;
      parsed = parsePrice(c.text, code ? { ...hints, currency: code } : hints);
      parsedByText.set(key, parsed);
    }
    if (parsed.amount == null || parsed.amount <= 0) continue;
    const score = c.score + (parsed.currency ? 1 : 0);
    if (!c.noise) displayedAmounts.add(parsed.amount);
    (c.noise ? noisePrices : priceCandidates).push({
      amount: parsed.amount,
      currency: parsed.currency,
      text: c.text,
      score,
      order: c.o,
      former: c.former,
      inMain: c.inMain,
      noise: c.ctx.picker,
      hidden: c.ctx.hidden,
      composite: (c.text.match(/\d[\d.,'\s]*/g) ?? []).length > 1,
      addon: c.addon,
      el: c.el,
    });
  }
  if (!priceCandidates.some((c) => !c.former && !c.noise && c.score > 0)) {
    const scope = area.main ?? nearHeading(area.h1, area.button);
    for (const found of plainTextPrices(scope, hints, area.h1Order, g.order)) {
      displayedAmounts.add(found.amount);
      priceCandidates.push(found);
    }
  }
  return { priceCandidates, displayedAmounts, noisePrices };
}

/** Current price: best score, then earliest; nested duplicates collapse onto one amount. */
function currentPrice(priceCandidates: readonly PriceCandidate[]): PriceCandidate | undefined {
  return priceCandidates
    .filter((c) => !c.former && c.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)[0];
}

/** A shown range ("$10.00 – $20.00", "10 € bis 20 €") whose lower end is the current price. */
function priceRangeOf(current: PriceCandidate, hints: PriceHints): { min: number; max: number } | null {
  if (current.text.length > 60) return null;
  const sides = current.text.split(RANGE_SEPARATOR);
  if (sides.length !== 2) return null;
  const low = parsePrice(sides[0], hints);
  const high = parsePrice(sides[1], hints);
  if (
    low.amount != null &&
    high.amount != null &&
    high.amount > low.amount &&
    Math.abs(low.amount - current.amount) < 0.005 &&
    (!low.currency || !high.currency || low.currency === high.currency)
  )
    return { min: low.amount, max: high.amount };
  return null;
}

/** The former price above the current one: in the product area, or else near it in document order. */
function compareAtOf(
  priceCandidates: readonly PriceCandidate[],
  current: PriceCandidate,
  main: Element | null,
): number | null {
  const formers = priceCandidates
    .filter(
      (c) =>
        c.former &&
        !c.el.attribs.class?.match(NOISE) &&
        c.amount > current.amount &&
        (main ? c.inMain : Math.abs(c.order - current.order) < 60),
    )
    .sort((a, b) => Math.abs(a.order - current.order) - Math.abs(b.order - current.order));
  return formers[0]?.amount ?? null;
}

/**
 * Availability: the wording of a stock-classed element, else the buy button's state, else
 * out-of-stock wording in the product area's text.
 */
function readAvailability(
  stockEls: readonly Element[],
  button: Element | null,
  scopeText: string,
): Availability | null {
  const availabilityEl = stockEls
    .map((e) => fullText(e, 200))
    .find((t) => t && t.length < 200 && (OUT_OF_STOCK.test(t) || IN_STOCK.test(t)));
  if (availabilityEl)
    return OUT_OF_STOCK.test(availabilityEl) && !/^(in stock)/i.test(availabilityEl) ? 'OutOfStock' : 'InStock';
  if (button && !('disabled' in button.attribs) && !/disabled|sold-?out|unavailable/i.test(button.attribs.class ?? ''))
    return 'InStock';
  if (button && ('disabled' in button.attribs || /sold-?out|unavailable/i.test(button.attribs.class ?? '')))
    return 'OutOfStock';
  if (scopeText && OUT_OF_STOCK.test(scopeText)) return 'OutOfStock';
  return null;
}

/**
 * The SKU: labelled text ("SKU: 123", "Art.-Nr. 123") or sku-classed elements, then a label in
 * the product area's text, then a data-sku attribute in the product area. A labelled SKU in the
 * details blocks after the buy box is kept apart as `detailsSku`.
 */
function readSku(
  g: Gathered,
  relatedBlocks: readonly Element[],
  area: ProductArea,
  scopeText: string,
): { sku: string | null; detailsSku: string | null } {
  const { main, h1, h1Order } = area;
  let sku: string | null = null;
  for (const { el, text: t } of g.skuTexts) {
    // Not a recommended product's (a block headed "Customers also bought").
    if (relatedBlocks.length && relatedBlocks.some((b) => contains(b, el))) continue;
    const m = skuLabelMatch(t);
    if (m) {
      sku = m[1];
      break;
    }
    const bare = t.trim();
    // A bare value is a SKU only when it is no size or range ("7-8", "40/42") and no price.
    if (SKU_VALUE.test(bare)) {
      sku = bare;
      break;
    }
  }
  if (!sku && scopeText) {
    const m = skuLabelMatch(scopeText);
    // A model number written in the product's heading is the maker's part number (an MPN), not the
    // shop's SKU: none is better than that one.
    const makers =
      !!m && MODEL_LABEL.test(m[0]) && !!h1 && fullText(h1, 300).toLowerCase().includes(m[1].toLowerCase());
    if (m && !BARE_CODE_LABEL.test(m[0].trim()) && !makers) sku = m[1];
  }
  // A details or specifications block after the buy box ("SKU: ..." in a tab): kept apart, the
  // merge uses it after an identifier in the URL. Never a model number there (often the maker's),
  // nor a bare "code" (coupon codes: "Inserisci il codice EE5BKKRB").
  let detailsSku: string | null = null;
  if (!sku && (main ?? h1)) {
    const m = skuLabelMatch(followingText(main ?? h1!, 3000));
    if (m && !/^model/i.test(m[0].trim()) && !BARE_CODE_LABEL.test(m[0].trim())) detailsSku = m[1];
  }
  // Last: a data-sku attribute in the product area (or after the heading), not a related card's.
  if (!sku && g.dataSkus.length) {
    const inArea = g.dataSkus.find((d) => (main ? contains(main, d.el) : h1Order >= 0 && d.order >= h1Order));
    sku = inArea?.value ?? null;
  }
  return { sku, detailsSku };
}

/**
 * The brand: a brand text with its label or "Visit the ... Store" wording taken off, then a
 * "Brand:" row, then a brand-page link in the product area or just after the heading.
 */
function readBrand($: CheerioAPI, g: Gathered, area: ProductArea): string | null {
  const { main, h1, h1Order } = area;
  for (const t of g.brandTexts) {
    const b = t
      .replace(
        /^(visit the|brand:|marke:|marca:|marque\s*:|by|besuchen sie den|besuche den|visita lo store di|visitez la boutique|visita la tienda de)\s*/i,
        '',
      )
      // "See more from the brand: Panasonic" in any language: the value after the brand label.
      .replace(/^.{0,60}\b(brand|marca|marke|marque|merk|märke|marka|бренд|marchio)\s*:\s*/i, '')
      .replace(/[\s-]*(store|shop)$/i, '')
      .trim();
    if (b && brandShaped(b) && !isBrandPlaceholder(b)) return b;
  }
  const labelled = g.labelledBrands.find((b) => brandShaped(b) && !isBrandPlaceholder(b));
  if (labelled) return labelled;
  if (!h1) return null;
  for (const { el, order: o } of g.brandLinks) {
    if (!(main ? contains(main, el) : o > h1Order && o - h1Order < 40)) continue;
    const img = $(el).find('img').first();
    const b = cleanText(el.attribs.title ?? img.attr('alt') ?? fullText(el, 80));
    if (b && brandShaped(b) && !isBrandPlaceholder(b) && !/\b(all|more|see|view|shop|visit)\b/i.test(b)) return b;
  }
  return null;
}

/** Product images: those in the product area (or classed as a gallery when there is none), no icons, at most 12. */
function readImages(imgs: Gathered['imgs'], main: Element | null, pageUrl: string): ImageCandidate[] {
  const images: ImageCandidate[] = [];
  for (const { el, noise } of imgs) {
    if (noise || images.length >= 12) continue;
    const a = el.attribs;
    const cls = `${a.class ?? ''} ${a.id ?? ''} ${(el.parent as Element | null)?.attribs?.class ?? ''}`;
    const inMain = main ? contains(main, el) : /product|gallery|zoom|main|hero|primary|pdp/i.test(cls);
    if (!inMain) continue;
    const src =
      a['data-zoom-image'] ??
      a['data-large_image'] ??
      a['data-src'] ??
      a['data-old-hires'] ??
      a.src ??
      a.srcset?.split(/\s+/)[0];
    const url = absoluteUrl(src, pageUrl);
    if (!url || /\.(svg|gif)(\?|$)/i.test(url) || /sprite|icon|logo|spinner|placeholder|pixel|blank/i.test(url))
      continue;
    const width = Number(a.width) || null;
    if (width != null && width < 80) continue;
    images.push({ url, width, height: Number(a.height) || null, alt: cleanText(a.alt) });
  }
  return images;
}

/**
 * `elements`: every element of the page in document order, when the caller has the parse's list
 * (document.ts); otherwise they are listed from the tree.
 */
export function readDom(
  $: CheerioAPI,
  pageUrl: string,
  countryCode: string | null,
  currencyHint: string | null,
  elements?: readonly Element[],
): DomReading {
  const root = $.root()[0];
  const g = gatherElements($, pageUrl, elements ?? elementsUnder(root), root);
  // Prices in blocks headed as other products' are noise, whatever their classes say.
  const relatedBlocks = relatedBlocksOf(g.subheadings, g.h1s);
  if (relatedBlocks.length) {
    for (const p of g.priceEls)
      if (!p.ctx.noise && relatedBlocks.some((b) => contains(b, p.el)))
        p.ctx = { ...p.ctx, noise: true, related: true };
  }
  unnoiseWrappedPrices(g, pageUrl);
  const area = productArea(g, pageUrl);
  const { main, h1, button } = area;

  const hints: PriceHints = { currency: currencyHint, countryCode };
  const { priceCandidates, displayedAmounts, noisePrices } = readPriceCandidates(g, area, hints);
  const current = currentPrice(priceCandidates);
  // A shown range: the price is its lower end, the range kept.
  const priceRange = current ? priceRangeOf(current, hints) : null;
  const compareAt = current ? compareAtOf(priceCandidates, current, main) : null;

  // Availability wording and labelled SKUs inside the product area (or near the title when there is none).
  const scope = main ?? (button ? (button.parent as Element) : null);
  const scopeText = scope ? fullText(scope, 6000, ' ') : '';
  const availability = readAvailability(g.stockEls, button, scopeText);
  const { sku, detailsSku } = readSku(g, relatedBlocks, area, scopeText);
  const brand = readBrand($, g, area);
  const images = readImages(g.imgs, main, pageUrl);

  const title = cleanText(h1 ? headingText(h1, g.priceEls) : null);
  return {
    product: {
      source: 'dom',
      title: title && title.length <= 300 ? title : null,
      brand,
      sku,
      images,
      price: current?.amount ?? null,
      currency: current?.currency ?? null,
      compareAt: compareAt != null && current && compareAt > current.amount ? compareAt : null,
      priceRange,
      availability,
    },
    priceCandidates,
    displayedAmounts,
    hasAddToCart: !!button,
    hasEnquiry: g.enquiry,
    productCardCount: g.productCardCount,
    breadcrumbs: g.breadcrumbLinks.slice(0, 12),
    relatedUrls: g.relatedLinks,
    h1Count: g.h1s.length,
    detailsSku,
    noisePrices,
    h1Order: area.h1Order,
    buttonOrder: g.buttonOrder,
    elementCount: g.order,
    skuTexts: g.skuTexts.slice(0, 10).map((t) => t.text),
    brandTexts: [...g.brandTexts, ...g.labelledBrands].slice(0, 10),
  };
}
