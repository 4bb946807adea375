// Signs that a page is built in the browser: the HTML a plain fetch gets holds a shell (an empty
// application root, a framework's bootstrap, data a script loads or hydrates) rather than the
// product. Only such pages are worth a browser when the HTML yields no product; a page with its
// text in the HTML that yields no product is not a product page, and a browser would not change that.
// Pure over the HTML: no DOM, so it costs a few regular expressions on a page already read.

export interface ClientRendering {
  clientRendered: boolean;
  /** Which signs were seen (for logs and tests). */
  signals: string[];
}

/** Elements frameworks mount into; an empty one is an application waiting for its script. */
const APP_ROOT =
  /<(div|main|section|body|app-root)\b[^>]*\bid\s*=\s*["']?(root|app|__next|__nuxt|___gatsby|svelte|main-app|app-root|application)["'\s>][^>]*>\s*(<\/\1>|<noscript\b)/i;
/** Custom application elements (Angular's <app-root>, ...) with nothing inside. */
const EMPTY_CUSTOM_ROOT = /<(app-root|[a-z]+-app)\b[^>]*>\s*<\/\1>/i;

/** State that a framework's script turns into the page (hydration). */
const BOOTSTRAP = [
  /<script[^>]+id\s*=\s*["']__NEXT_DATA__["']/i,
  /window\.__(NUXT|APOLLO_STATE|INITIAL_STATE|PRELOADED_STATE|INITIAL_PROPS|remixContext|staticRouterHydrationData)__?\b/,
  /\bng-version\s*=|\bdata-reactroot\b|\bdata-v-app\b|\bdata-server-rendered\b|\bng-app\b/i,
];

/** Data for a script (server-rendered themes carry these too: it counts beside a shell body only). */
const DATA_BLOCK = /<script[^>]+type\s*=\s*["']application\/(json|vnd\.[\w.+-]*json)["']/i;

/** A script asking the network for data: the product arrives after the HTML. */
const SCRIPT_LOAD = /\b(fetch\s*\(|XMLHttpRequest\b|axios\.|\$\.(get|ajax|getJSON)\s*\()/;

const SCRIPT_BLOCK = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;
const NON_TEXT = /<(script|style|noscript|template|svg)\b[\s\S]*?<\/\1\s*>/gi;

/** Visible text of the body, roughly: tags, scripts and styles removed, whitespace collapsed. */
function bodyText(html: string): string {
  const start = html.search(/<body\b/i);
  const body = start >= 0 ? html.slice(start) : html;
  return body
    .replace(NON_TEXT, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&[#\w]+;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Below this many characters of visible text a page with scripts is a shell. */
const SHELL_TEXT_CHARS = 400;

export function clientRendering(html: string): ClientRendering {
  const signals: string[] = [];
  const scripts = [...html.matchAll(SCRIPT_BLOCK)];
  if (!scripts.length) return { clientRendered: false, signals };
  if (APP_ROOT.test(html) || EMPTY_CUSTOM_ROOT.test(html)) signals.push('empty_app_root');
  if (BOOTSTRAP.some((rule) => rule.test(html))) signals.push('framework_bootstrap');
  if (scripts.some(([, , code]) => SCRIPT_LOAD.test(code))) signals.push('script_loads_data');
  if (DATA_BLOCK.test(html)) signals.push('script_data');
  if (bodyText(html).length < SHELL_TEXT_CHARS) signals.push('shell_body');
  // A loader or a data block alone is every analytics snippet and theme: they count beside a shell body only.
  const strong = signals.includes('empty_app_root') || signals.includes('framework_bootstrap');
  const loaded =
    (signals.includes('script_loads_data') || signals.includes('script_data')) && signals.includes('shell_body');
  return { clientRendered: strong || loaded, signals };
}
