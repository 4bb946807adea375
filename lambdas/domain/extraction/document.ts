// A page parsed once, with the list of its elements in document order recorded while parsing.
// The readers ask the whole document for a few things (its <meta>s, its <script>s, its
// microdata scopes, its <select>s...): each such question used to be a selector scan of the whole
// tree (css-select walking every node); here it is a filter of one flat array, and the
// element-name questions are one lookup. The answers are the same elements in the same order
// (test/unit/extraction-document.test.ts checks every corpus page against cheerio's own).
import * as cheerio from 'cheerio/slim';
import type { CheerioAPI } from 'cheerio';
import { DomHandler, type Element } from 'domhandler';
import { Parser, Tokenizer } from 'htmlparser2';

/** htmlparser2 in HTML mode: several times faster than parse5 and lighter on memory. */
export const PARSE_OPTIONS = {
  xml: { xmlMode: false, decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
} as const;
// What cheerio.load hands htmlparser2 for PARSE_OPTIONS (its flattened options).
const PARSER_OPTIONS = { xmlMode: false, decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true };

/** The parts of htmlparser2's tokenizer the subclass below reads and overrides (private in its types). */
interface TokenizerInternals {
  buffer: string;
  index: number;
  offset: number;
  decodeEntities: boolean;
  stateText(c: number): void;
  handleInAttributeValue(c: number, quote: number): void;
  fastForwardTo(c: number): boolean;
  stateInTagName(c: number): void;
  stateInAttributeName(c: number): void;
  stateInClosingTagName(c: number): void;
}
const LT = 0x3c;
const AMP = 0x26;
const DOUBLE_QUOTE = 0x22;
const CHARS: string[] = [];
// The characters that end a name in a tag, as bits: whitespace (space, \n, \t, \f, \r), and
// `/`, `>` (a tag name), `>` (a closing tag's), `=`, `/`, `>` (an attribute's).
const TAG_NAME = 1;
const CLOSING_NAME = 2;
const ATTRIBUTE_NAME = 4;
const NAME_ENDS = new Uint8Array(128);
for (const c of [0x20, 0x0a, 0x09, 0x0c, 0x0d]) NAME_ENDS[c] = TAG_NAME | CLOSING_NAME | ATTRIBUTE_NAME;
NAME_ENDS[0x3e] = TAG_NAME | CLOSING_NAME | ATTRIBUTE_NAME;
NAME_ENDS[0x2f] = TAG_NAME | ATTRIBUTE_NAME;
NAME_ENDS[0x3d] = ATTRIBUTE_NAME;

/**
 * htmlparser2's tokenizer with its per-character loop skipped where a character cannot change
 * anything: in text only `<` and `&` do something (with entities decoded), in a quoted attribute
 * value only its quote and `&`, and a wait for one character is an indexOf. The tokens, and so
 * the tree, are the same (test/unit/extraction-document.test.ts compares both on every corpus page).
 */
class SkippingTokenizer extends (Tokenizer as unknown as new (
  options: { xmlMode?: boolean; decodeEntities?: boolean },
  cbs: unknown,
) => TokenizerInternals) {
  // The first `&` at or after `ampFrom` in `ampBuffer` (its length: none): kept while the parse
  // moves on, so each stretch of the page is searched for `&` once, not once per token.
  private ampBuffer = '';
  private ampFrom = 0;
  private ampAt = 0;

  /** Moves to just before the next `stop` character or `&` after the current character (or the end). */
  private skipTo(stop: string): void {
    const buffer = this.buffer;
    const from = this.index - this.offset + 1;
    if (buffer !== this.ampBuffer || from < this.ampFrom || from > this.ampAt) {
      const amp = buffer.indexOf('&', from);
      this.ampBuffer = buffer;
      this.ampFrom = from;
      this.ampAt = amp < 0 ? buffer.length : amp;
    }
    let at = buffer.indexOf(stop, from);
    if (at < 0 || at > this.ampAt) at = this.ampAt;
    // The parse loop moves one character on after each state call.
    this.index = at + this.offset - 1;
  }

  override stateText(c: number): void {
    if (c !== LT && c !== AMP && this.decodeEntities) this.skipTo('<');
    else super.stateText(c);
  }

  override handleInAttributeValue(c: number, quote: number): void {
    if (c !== quote && c !== AMP && this.decodeEntities) this.skipTo(quote === DOUBLE_QUOTE ? '"' : "'");
    else super.handleInAttributeValue(c, quote);
  }

  /**
   * Inside a name (the current character is part of it): moves to just before the next character
   * that ends this kind of name (or the end), where the state's own handler takes over; the
   * characters in between do nothing in that state.
   */
  private skipName(kind: number): void {
    const buffer = this.buffer;
    const length = buffer.length;
    let at = this.index - this.offset + 1;
    // Bounded: one step per character up to the end of the page.
    for (; at < length; at++) {
      const c = buffer.charCodeAt(at);
      if (c < 128 && (NAME_ENDS[c] & kind) !== 0) break;
    }
    this.index = at + this.offset - 1;
  }

  override stateInTagName(c: number): void {
    if (c < 128 && (NAME_ENDS[c] & TAG_NAME) !== 0) super.stateInTagName(c);
    else this.skipName(TAG_NAME);
  }

  override stateInClosingTagName(c: number): void {
    if (c < 128 && (NAME_ENDS[c] & CLOSING_NAME) !== 0) super.stateInClosingTagName(c);
    else this.skipName(CLOSING_NAME);
  }

  override stateInAttributeName(c: number): void {
    if (c < 128 && (NAME_ENDS[c] & ATTRIBUTE_NAME) !== 0) super.stateInAttributeName(c);
    else this.skipName(ATTRIBUTE_NAME);
  }

  override fastForwardTo(c: number): boolean {
    const at = this.buffer.indexOf((CHARS[c] ??= String.fromCharCode(c)), this.index - this.offset + 1);
    if (at >= 0) {
      this.index = at + this.offset;
      return true;
    }
    this.index = this.buffer.length + this.offset - 1;
    return false;
  }
}

/** The parts of htmlparser2's parser the subclass below reads and overrides (private in its types). */
interface ParserInternals {
  startIndex: number;
  endIndex: number;
  attribname: string;
  buffers: string[];
  bufferOffset: number;
  htmlMode: boolean;
  stack: string[];
  foreignContext: boolean[];
  cbs: {
    onclosetag?(name: string, isImplied: boolean): void;
    onopentagname?(name: string): void;
    onopentag?(name: string, attribs: Record<string, string>, isImplied: boolean): void;
  };
  getSlice(start: number, end: number): string;
  emitOpenTag(name: string): void;
  closeCurrentTag(isOpenImplied: boolean): void;
  isVoidElement(name: string): boolean;
  end(html: string): void;
}
// Tag and attribute names lower-cased once per distinct spelling, not once per occurrence.
const lowerNames = new Map<string, string>();
function lowerName(name: string): string {
  let lower = lowerNames.get(name);
  if (lower === undefined) {
    lower = name.toLowerCase();
    if (lowerNames.size < 10_000) lowerNames.set(name, lower);
  }
  return lower;
}

// Names seen (ASCII ones), by their length and first, middle and last characters: a tag or
// attribute name read off the page is compared here in place, without cutting it out of the page
// first (most names are a handful of spellings repeated thousands of times). A slot holds the last
// name that went there.
const NAME_SLOTS = 1024;
const nameSlots: Array<string | undefined> = new Array(NAME_SLOTS);
// The elements htmlparser2's parser treats specially when closed (its own lists).
const FOREIGN_CONTEXT = new Set(['math', 'svg']);
const HTML_INTEGRATION = new Set(['mi', 'mo', 'mn', 'ms', 'mtext', 'annotation-xml', 'foreignobject', 'desc', 'title']);

/** htmlparser2's parser (names lower-cased, as PARSER_OPTIONS asks) without a slice and toLowerCase per tag and attribute. */
class NamingParser extends (Parser as unknown as new (cbs: unknown, options: unknown) => ParserInternals) {
  /** The lower-cased name at [start, end) of the page: `getSlice(start, end).toLowerCase()`. */
  private name(start: number, end: number): string {
    const buffer = this.buffers[0];
    const from = start - this.bufferOffset;
    const to = end - this.bufferOffset;
    const length = to - from;
    if (buffer === undefined || from < 0 || to > buffer.length || length <= 0)
      return lowerName(this.getSlice(start, end));
    // The slot: the name's length and its first, middle and last characters (case aside).
    const slot =
      (Math.imul(length, 0x9e3) ^
        ((buffer.charCodeAt(from) | 32) << 6) ^
        ((buffer.charCodeAt(from + (length >> 1)) | 32) << 3) ^
        (buffer.charCodeAt(to - 1) | 32)) &
      (NAME_SLOTS - 1);
    const known = nameSlots[slot];
    if (known !== undefined && known.length === length) {
      // The slot holds an ASCII lower-case name: the same when each character is it, A-Z lower-cased.
      let i = from;
      for (let k = 0; i < to; i++, k++) {
        let c = buffer.charCodeAt(i);
        if (c >= 65 && c <= 90) c |= 32;
        if (c !== known.charCodeAt(k)) break;
      }
      if (i === to) return known;
    }
    const lower = lowerName(this.getSlice(start, end));
    let ascii = lower.length === length;
    for (let k = 0; ascii && k < length; k++) if (lower.charCodeAt(k) >= 128) ascii = false;
    if (ascii) nameSlots[slot] = lower;
    return lower;
  }

  onattribname(start: number, endIndex: number): void {
    this.startIndex = start;
    this.attribname = this.name(start, endIndex);
  }

  onopentagname(start: number, endIndex: number): void {
    this.endIndex = endIndex;
    this.emitOpenTag(this.name(start, endIndex));
  }

  /** htmlparser2's onclosetag (HTML mode, lower-cased names) with the name looked up as above. */
  onclosetag(start: number, endIndex: number): void {
    this.endIndex = endIndex;
    const name = this.name(start, endIndex);
    if (this.htmlMode && (FOREIGN_CONTEXT.has(name) || HTML_INTEGRATION.has(name))) this.foreignContext.shift();
    if (!this.isVoidElement(name)) {
      const pos = this.stack.indexOf(name);
      if (pos !== -1) {
        for (let index = 0; index <= pos; index++) {
          const element = this.stack.shift()!;
          this.cbs.onclosetag?.(element, index !== pos);
        }
      } else if (this.htmlMode && name === 'p') {
        this.emitOpenTag('p');
        this.closeCurrentTag(true);
      }
    } else if (this.htmlMode && name === 'br') {
      this.cbs.onopentagname?.('br');
      this.cbs.onopentag?.('br', {}, true);
      this.cbs.onclosetag?.('br', false);
    }
    this.startIndex = endIndex + 1;
  }
}
const TOKENIZING_OPTIONS = { ...PARSER_OPTIONS, Tokenizer: SkippingTokenizer as unknown as typeof Tokenizer };

const SCOPE = 1;
const PROP = 2;
const DESCRIPTION = 4;

/**
 * domhandler's tree builder, also keeping every element in the order it was opened, and the
 * elements with an itemscope or typeof, with an itemprop, and those that may say "description"
 * in their itemprop, id or class: noted from the parser's attribute events (an element's come
 * before it opens), so no question to the many-shaped attribute objects afterwards.
 */
class ListingHandler extends DomHandler {
  readonly elements: Element[] = [];
  readonly scopes: Element[] = [];
  readonly props: Element[] = [];
  readonly describing: Element[] = [];
  /** The elements of each name, in document order. */
  readonly byName = new Map<string, Element[]>();
  private marks = 0;
  onattribute(name: string, value: string): void {
    switch (name) {
      case 'itemscope':
      case 'typeof':
        this.marks |= SCOPE;
        break;
      case 'itemprop':
        this.marks |= PROP;
        if (value.includes('description')) this.marks |= DESCRIPTION;
        break;
      case 'id':
      case 'class':
        if (value.includes('description')) this.marks |= DESCRIPTION;
        break;
    }
  }
  override onopentag(name: string, attribs: Record<string, string>): void {
    super.onopentag(name, attribs);
    const el = this.tagStack[this.tagStack.length - 1] as Element;
    this.elements.push(el);
    const named = this.byName.get(name);
    if (named !== undefined) named.push(el);
    else this.byName.set(name, [el]);
    const marks = this.marks;
    if (marks !== 0) {
      if (marks & SCOPE) this.scopes.push(el);
      if (marks & PROP) this.props.push(el);
      if (marks & DESCRIPTION) this.describing.push(el);
      this.marks = 0;
    }
  }
}

const hasOwn = (o: object, k: string) => Object.hasOwn(o, k);

/** css-select's [name]: the attribute is there (any value). */
export const hasAttr = (el: Element, name: string) => hasOwn(el.attribs, name) && el.attribs[name] != null;

/** cheerio's .attr(name) for a non-boolean attribute: its value when present. */
export const attrOf = (el: Element | undefined, name: string): string | undefined =>
  el && hasOwn(el.attribs, name) ? el.attribs[name] : undefined;

/** css-select's [name="value" i] for the attributes HTML compares without case (type, rel...). */
const equalsIgnoringCase = (value: string | undefined, expected: string) =>
  value != null && value.length === expected.length && value.toLowerCase() === expected;

const WHITESPACE = /\s/;
/** css-select's .token / [class~=token]: a whole whitespace-separated word of the attribute. */
export function hasWord(value: string | undefined, word: string): boolean {
  if (!value) return false;
  for (let at = value.indexOf(word); at >= 0; at = value.indexOf(word, at + 1)) {
    const end = at + word.length;
    if ((at === 0 || WHITESPACE.test(value[at - 1])) && (end === value.length || WHITESPACE.test(value[end])))
      return true;
  }
  return false;
}

/**
 * Whole-document selectors the readers use, as predicates with css-select's semantics for this
 * parse (HTML mode: `type` and `rel` values compared without case).
 */
const SELECTORS: Record<string, (el: Element) => boolean> = {
  'link[rel="canonical"]': (el) => el.name === 'link' && equalsIgnoringCase(el.attribs.rel, 'canonical'),
  '[itemscope], [typeof]': (el) => hasAttr(el, 'itemscope') || hasAttr(el, 'typeof'),
  '[itemprop]': (el) => hasAttr(el, 'itemprop'),
  'script[type="application/json"], script[type="text/json"]': (el) =>
    el.name === 'script' &&
    (equalsIgnoringCase(el.attribs.type, 'application/json') || equalsIgnoringCase(el.attribs.type, 'text/json')),
  'form[data-product_variations]': (el) => el.name === 'form' && hasAttr(el, 'data-product_variations'),
};
const PLAIN_NAME = /^[a-z][a-z0-9-]*$/;
const LABEL_FOR = /^label\[for="([^"\\]*)"\]$/;

export class PageDocument {
  readonly $: CheerioAPI;
  /** Every element (scripts and styles too) in document order. */
  readonly elements: readonly Element[];
  /**
   * The elements whose itemprop, id or class contains "description" (with a repeated attribute,
   * any of its values; the caller tests the kept one), in document order.
   */
  readonly describing: readonly Element[];
  private readonly listed: Record<string, readonly Element[]>;
  private readonly names: ReadonlyMap<string, readonly Element[]>;
  private answers = new Map<string, Element[]>();

  constructor(html: string) {
    const handler = new ListingHandler(undefined, PARSER_OPTIONS);
    new NamingParser(handler, TOKENIZING_OPTIONS).end(html);
    this.elements = handler.elements;
    this.describing = handler.describing;
    this.names = handler.byName;
    // [itemscope], [typeof] and [itemprop] as the parser saw them (attribute values are strings).
    this.listed = { '[itemscope], [typeof]': handler.scopes, '[itemprop]': handler.props };
    const base = cheerio.load(handler.root, PARSE_OPTIONS);
    // `$` answers the whole-document selectors above from the element list and hands every other
    // call (a node, a selector with a context, an unknown selector) to cheerio unchanged.
    const indexed = ((selector?: unknown, context?: unknown, root?: unknown, options?: unknown) => {
      if (typeof selector === 'string' && context === undefined && root === undefined) {
        const found = this.select(selector);
        if (found) return base(found);
      }
      return (base as (...args: unknown[]) => unknown)(selector, context, root, options);
    }) as unknown as CheerioAPI;
    Object.setPrototypeOf(indexed, base);
    this.$ = indexed;
  }

  /** Elements with this (lower-case) name, in document order. */
  byName(name: string): readonly Element[] {
    return this.names.get(name) ?? [];
  }

  /** The elements a known whole-document selector selects (a fresh array), or null when it is not one. */
  select(selector: string): Element[] | null {
    const cached = this.answers.get(selector);
    if (cached) return [...cached];
    let found: Element[] | null = null;
    if (PLAIN_NAME.test(selector)) found = [...this.byName(selector)];
    else if (Object.hasOwn(this.listed, selector)) found = [...this.listed[selector]];
    else if (SELECTORS[selector]) found = this.elements.filter(SELECTORS[selector]);
    else {
      const forId = LABEL_FOR.exec(selector)?.[1];
      if (forId !== undefined) found = this.byName('label').filter((el) => el.attribs.for === forId);
    }
    if (found) this.answers.set(selector, found);
    return found ? [...found] : null;
  }
}

export function parsePage(html: string): PageDocument {
  return new PageDocument(html);
}
