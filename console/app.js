// The local console: one page, no build step, no data of its own. Everything shown comes from the
// public API, called with the key the user typed (kept in sessionStorage, sent as x-api-key), so
// the console sees exactly what that key may see. Status reads follow the spec's suggested polling
// (extractions every 5 s, 30 s while waiting on a crawl; crawls every 10 s) and back off on 429.
// Every value from the API reaches the page as text (textContent, attributes), never as markup.

const KEY_STORE = 'pds.console.apiKey';
/** Spec, "Events": extractions every 5 to 10 s (30 to 60 s while waiting on a crawl), crawls every 10 to 30 s. */
const POLL_MS = { extract: 5_000, extractWaiting: 30_000, crawl: 10_000, agentic: 5_000, lists: 15_000 };
/** Status reads per list at most (the rate limit is per key). */
const LIVE_ROWS = 25;
const LIST_PAGE_SIZE = 50;
const RESULT_PAGE_SIZE = 50;
const SEARCH_LIMIT = 24;
const MAX_429_RETRIES = 3;
const FINISHED = new Set(['completed', 'failed']);
const CRAWL_STEPS = [
  'Determining crawl method',
  'Discovering collections',
  'Analyzing collections',
  'Extracting listings',
];

const main = document.getElementById('main');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------- DOM helpers (text only)

/** An element with attributes (strings, booleans; `on*` functions become listeners) and children (nodes or text). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function' && name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else if (name === 'className') el.className = value;
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Only http(s) URLs become links or images. */
const safeUrl = (url) => (typeof url === 'string' && /^https?:\/\//i.test(url) ? url : null);

function externalLink(url, text = url) {
  const href = safeUrl(url);
  return href ? h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, text) : h('span', {}, text ?? '');
}

const chip = (status) => h('span', { className: `chip chip-${String(status).replace(/[^a-z_]/gi, '')}` }, status);

function formatPrice(amount, currency) {
  if (typeof amount !== 'number' || !Number.isFinite(amount)) return '';
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: currency || 'USD' }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency ?? ''}`.trim();
  }
}

function formatTime(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString();
}

function formatDuration(ms) {
  if (typeof ms !== 'number') return '';
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  return s < 60 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

// ---------------------------------------------------------------- API

const getKey = () => sessionStorage.getItem(KEY_STORE);

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** The message of an error body in any family's shape. */
function errorMessage(body, status) {
  if (body && typeof body === 'object') {
    if (typeof body.error === 'string') return body.error;
    if (body.error && typeof body.error.message === 'string') return body.error.message;
    if (typeof body.message === 'string') return body.message;
  }
  return `HTTP ${status}`;
}

/** One API call with the session's key; 429 waits Retry-After (bounded) and tries again; 401 signs out. */
async function api(method, path, body, key = getKey()) {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(path, {
      method,
      cache: 'no-store',
      headers: { 'x-api-key': key ?? '', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status === 429 && attempt < MAX_429_RETRIES) {
      const seconds = Number(response.headers.get('retry-after'));
      await sleep(Math.min(30, Number.isFinite(seconds) && seconds > 0 ? seconds : 2 ** attempt) * 1000);
      continue;
    }
    const data = await response.json().catch(() => null);
    if (response.ok) return data;
    if (response.status === 401 && key === getKey()) signOut('The API key was refused. Enter a valid key.');
    throw new ApiError(response.status, errorMessage(data, response.status));
  }
}

let operations = null;
/** The served OpenAPI document's paths (public), to find optional operations such as an agentic-search list. */
async function servedPaths() {
  if (!operations) {
    operations = fetch('/openapi.json', { cache: 'no-store' })
      .then((r) => (r.ok ? r.json() : { paths: {} }))
      .then((doc) => doc.paths ?? {})
      .catch(() => ({}));
  }
  return operations;
}

// ---------------------------------------------------------------- timers of the current view

let generation = 0;
const timers = new Set();

/** Live updates of one view stop after this long (the spec advises a client-side maximum wait); a reload resumes them. */
const MAX_LIVE_MS = 60 * 60 * 1000;
let viewStarted = Date.now();

/** Runs `fn` after `ms` unless the view changed meanwhile or has been live for MAX_LIVE_MS. */
function later(ms, fn) {
  const mine = generation;
  if (Date.now() + ms - viewStarted > MAX_LIVE_MS) {
    if (!document.getElementById('live-stopped')) {
      main.prepend(
        h(
          'p',
          { id: 'live-stopped', className: 'card muted' },
          `Live updates stopped after ${MAX_LIVE_MS / 60_000} minutes on this page; reload to resume.`,
        ),
      );
    }
    return;
  }
  const id = setTimeout(() => {
    timers.delete(id);
    if (mine === generation) fn();
  }, ms);
  timers.add(id);
}

function newView() {
  generation++;
  viewStarted = Date.now();
  for (const id of timers) clearTimeout(id);
  timers.clear();
  main.replaceChildren();
  return generation;
}

const current = (mine) => mine === generation;

// ---------------------------------------------------------------- key

function signOut(message) {
  sessionStorage.removeItem(KEY_STORE);
  showKeyForm(message);
}

function showKeyForm(message) {
  newView();
  document.getElementById('nav').hidden = true;
  document.getElementById('session').hidden = true;
  const input = h('input', {
    id: 'api-key',
    name: 'api-key',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'x-api-key',
    required: true,
  });
  const error = h('p', { id: 'key-error', className: 'error', role: 'alert' }, message ?? '');
  const form = h(
    'form',
    {
      id: 'key-form',
      className: 'card key-form',
      onsubmit: async (event) => {
        event.preventDefault();
        const key = input.value.trim();
        if (!key) return;
        error.textContent = 'Checking the key…';
        // Any authenticated read tells a refused key (401) from one without that scope (403).
        try {
          await api('GET', '/v2/extract?page_size=1', undefined, key);
        } catch (e) {
          if (e.status === 401 || !(e instanceof ApiError)) {
            error.textContent = e instanceof ApiError ? e.message : `The service did not answer: ${e.message}`;
            return;
          }
        }
        sessionStorage.setItem(KEY_STORE, key);
        route();
      },
    },
    h('h1', {}, 'Open the console'),
    h(
      'p',
      {},
      'Enter an API key. The console calls the public API with it and shows only what the key may see; ' +
        'the key stays in this tab (sessionStorage) and is forgotten when the tab closes.',
    ),
    h('label', { for: 'api-key' }, 'API key'),
    input,
    h('button', { type: 'submit', id: 'key-submit' }, 'Open'),
    error,
  );
  main.append(form);
  input.focus();
}

// ---------------------------------------------------------------- executions

/** The kinds of execution with a list operation; an agentic-search list is used when the service serves one. */
async function executionKinds() {
  const kinds = [
    { kind: 'extract', label: 'Extraction', list: '/v2/extract', status: (id) => `/v2/extract/${id}?page_size=1` },
    { kind: 'crawl', label: 'Crawl', list: '/v2/crawl', status: (id) => `/v2/crawl/${id}` },
  ];
  const paths = await servedPaths();
  if (paths['/v2/agentic-search']?.get) {
    kinds.push({
      kind: 'agentic',
      label: 'Agentic search',
      list: '/v2/agentic-search',
      status: (id) => `/v2/agentic-search/${id}`,
    });
  }
  return kinds;
}

const pollInterval = (kind, status) =>
  kind === 'extract' ? (status?.meta?.waiting_for ? POLL_MS.extractWaiting : POLL_MS.extract) : POLL_MS[kind];

/** Progress cell of one execution from its status body (or the list summary until it is read). */
function progressCell(kind, status) {
  if (!status) return h('span', { className: 'muted' }, '—');
  if (kind === 'extract') {
    const p = status.meta?.progress ?? {};
    const total = p.products_total ?? 0;
    const done = p.products_processed ?? 0;
    const r = status.meta?.result ?? {};
    return h(
      'div',
      { className: 'progress' },
      h('progress', { max: Math.max(total, 1), value: done }),
      h('span', { className: 'progress-text' }, `${done} / ${total} URLs (${p.percent_complete ?? 0}%)`),
      h(
        'span',
        { className: 'counts' },
        `${r.products_successful ?? 0} ok · ${r.products_failed ?? 0} failed · ${r.products_invalid ?? 0} invalid`,
      ),
      status.meta?.waiting_for ? h('span', { className: 'muted' }, `waiting for ${status.meta.waiting_for}`) : null,
    );
  }
  if (kind === 'crawl') {
    const steps = status.meta?.steps ?? [];
    const completed = steps.filter((s) => s.status === 'completed').length;
    const found = status.meta?.progress ?? status.meta?.result ?? {};
    const collections = found.collections_found ?? found.collections_total ?? 0;
    const listings = found.listings_found ?? found.listings_total ?? 0;
    return h(
      'div',
      { className: 'progress' },
      h('progress', { max: CRAWL_STEPS.length, value: completed }),
      h('span', { className: 'progress-text' }, `${completed} / ${CRAWL_STEPS.length} steps`),
      h('span', { className: 'counts' }, `${collections} collections · ${listings} listings`),
    );
  }
  return h('span', { className: 'progress-text' }, status.status ?? '');
}

function executionRow(kind, summary, status) {
  const id = summary.execution_id;
  const state = status?.status ?? summary.status;
  const linkable = kind.kind === 'extract' || kind.kind === 'crawl';
  return h(
    'tr',
    { 'data-execution-id': id, 'data-kind': kind.kind, 'data-status': state },
    h('td', {}, kind.label),
    h('td', { className: 'mono' }, linkable ? h('a', { href: `#/${kind.kind}/${encodeURIComponent(id)}` }, id) : id),
    h('td', {}, chip(state)),
    h('td', {}, progressCell(kind.kind, status)),
    h('td', { className: 'muted' }, formatTime(summary.created_at)),
  );
}

async function showExecutions() {
  const mine = newView();
  setNav('executions');
  const note = h('p', { className: 'muted', id: 'executions-note' }, 'Loading…');
  const body = h('tbody', { id: 'executions-body' });
  const errors = h('div', { id: 'executions-errors' });
  main.append(
    h(
      'section',
      { className: 'card' },
      h(
        'div',
        { className: 'card-head' },
        h('h1', {}, 'Executions'),
        h(
          'span',
          { className: 'muted' },
          'Live: extractions refresh every 5 s (30 s while waiting on a crawl), crawls every 10 s.',
        ),
      ),
      errors,
      h(
        'table',
        { className: 'grid', id: 'executions' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', {}, 'Kind'),
            h('th', {}, 'Execution'),
            h('th', {}, 'Status'),
            h('th', {}, 'Progress'),
            h('th', {}, 'Created'),
          ),
        ),
        body,
      ),
      note,
    ),
  );

  const kinds = await executionKinds();
  /** execution id -> { kind, summary, status, row, polling } */
  const rows = new Map();

  const place = () => {
    const ordered = [...rows.values()].sort((a, b) =>
      String(b.summary.created_at).localeCompare(String(a.summary.created_at)),
    );
    body.replaceChildren(...ordered.map((entry) => entry.row));
    note.textContent = ordered.length
      ? `${ordered.length} executions`
      : 'No executions yet for this key’s organization.';
  };

  const poll = async (entry) => {
    if (!current(mine)) return;
    try {
      entry.status = await api('GET', entry.kind.status(entry.summary.execution_id));
    } catch (e) {
      if (e.status === 401 || !current(mine)) return;
    }
    if (!current(mine)) return;
    const fresh = executionRow(entry.kind, entry.summary, entry.status);
    entry.row.replaceWith(fresh);
    entry.row = fresh;
    if (entry.status && !FINISHED.has(entry.status.status))
      later(pollInterval(entry.kind.kind, entry.status), () => poll(entry));
    else entry.polling = false;
  };

  const refreshLists = async () => {
    const problems = [];
    await Promise.all(
      kinds.map(async (kind) => {
        let listed;
        try {
          listed = await api('GET', `${kind.list}?page_size=${LIST_PAGE_SIZE}`);
        } catch (e) {
          if (e.status === 403) problems.push(`${kind.label}s: this key may not list them (${e.message}).`);
          else if (e.status !== 401) problems.push(`${kind.label}s: ${e.message}`);
          return;
        }
        (listed?.data ?? []).forEach((summary, index) => {
          let entry = rows.get(summary.execution_id);
          if (!entry) {
            entry = { kind, summary, status: null, row: executionRow(kind, summary, null), polling: false };
            rows.set(summary.execution_id, entry);
          }
          entry.summary = summary;
          // The newest rows are read and kept live; a finished one is read once.
          if (index < LIVE_ROWS && !entry.polling && (!entry.status || !FINISHED.has(entry.status.status))) {
            entry.polling = true;
            poll(entry);
          }
        });
      }),
    );
    if (!current(mine)) return;
    errors.replaceChildren(...problems.map((p) => h('p', { className: 'error' }, p)));
    place();
    later(POLL_MS.lists, refreshLists);
  };
  await refreshLists();
}

// ---------------------------------------------------------------- one extraction

function countsGrid(result) {
  const cells = [
    ['Requested', result.products_requested],
    ['Successful', result.products_successful],
    ['Failed', result.products_failed],
    ['Invalid', result.products_invalid],
    ['Pending', result.products_pending],
  ];
  const reasons = { ...(result.products_failed_by_reason ?? {}), ...(result.products_invalid_by_reason ?? {}) };
  return h(
    'div',
    {},
    h(
      'dl',
      { className: 'counts-grid', id: 'extract-counts' },
      cells.map(([label, value]) => h('div', {}, h('dt', {}, label), h('dd', {}, String(value ?? 0)))),
    ),
    Object.keys(reasons).length
      ? h(
          'p',
          { className: 'muted' },
          `By reason: ${Object.entries(reasons)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
        )
      : null,
  );
}

function productCell(product) {
  if (!product) return h('span', { className: 'muted' }, '—');
  const image = safeUrl(product.images?.[0]?.url);
  return h(
    'div',
    { className: 'product-mini' },
    image ? h('img', { src: image, alt: '', loading: 'lazy', width: 40, height: 40 }) : null,
    h(
      'div',
      {},
      h('div', {}, product.title ?? ''),
      h('div', { className: 'price' }, formatPrice(product.price?.current_value, product.price?.currency)),
    ),
  );
}

function timing(meta) {
  return h(
    'p',
    { className: 'muted' },
    [
      meta?.start_date ? `started ${formatTime(meta.start_date)}` : null,
      meta?.stop_date ? `stopped ${formatTime(meta.stop_date)}` : null,
      typeof meta?.duration_ms === 'number' ? `took ${formatDuration(meta.duration_ms)}` : null,
    ]
      .filter(Boolean)
      .join(' · '),
  );
}

function backLink() {
  return h('a', { href: '#/executions', className: 'back' }, '← Executions');
}

function notFound(id, e) {
  main.replaceChildren(
    h(
      'section',
      { className: 'card' },
      backLink(),
      h('h1', {}, id),
      h('p', { className: 'error', id: 'detail-error' }, e.status === 404 ? 'Not found for this key.' : e.message),
    ),
  );
}

async function showExtraction(id, page) {
  const mine = newView();
  setNav('executions');
  const load = async () => {
    let status;
    try {
      status = await api('GET', `/v2/extract/${encodeURIComponent(id)}?page=${page}&page_size=${RESULT_PAGE_SIZE}`);
    } catch (e) {
      if (current(mine) && e.status !== 401) notFound(id, e);
      return;
    }
    if (!current(mine)) return;
    const meta = status.meta ?? {};
    const results = status.data;
    const pagination = status.pagination;
    const offset = ((pagination?.page ?? page) - 1) * (pagination?.page_size ?? RESULT_PAGE_SIZE);
    const table = results
      ? h(
          'table',
          { className: 'grid', id: 'outcomes' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', {}, '#'),
              h('th', {}, 'URL'),
              h('th', {}, 'Outcome'),
              h('th', {}, 'Retry'),
              h('th', {}, 'Message'),
              h('th', {}, 'Product'),
            ),
          ),
          h(
            'tbody',
            {},
            results.map((r, i) =>
              h(
                'tr',
                { 'data-outcome': r.outcome },
                h('td', { className: 'muted' }, String(offset + i + 1)),
                h(
                  'td',
                  { className: 'url' },
                  externalLink(r.url),
                  r.final_url ? h('div', { className: 'muted' }, `→ ${r.final_url}`) : null,
                ),
                h('td', {}, chip(r.outcome)),
                h('td', {}, r.success ? '' : r.retry ? 'yes' : 'no'),
                h('td', { className: 'message' }, r.message ?? ''),
                h('td', {}, productCell(r.product)),
              ),
            ),
          ),
        )
      : h(
          'p',
          { className: 'muted', id: 'outcomes-pending' },
          'Per-URL outcomes appear here when the extraction finishes.',
        );
    const pager =
      pagination && pagination.total_pages > 1
        ? h(
            'div',
            { className: 'pager' },
            pagination.has_prev
              ? h('a', { href: `#/extract/${encodeURIComponent(id)}?page=${page - 1}` }, '← Previous')
              : null,
            h(
              'span',
              { className: 'muted' },
              `Page ${pagination.page} of ${pagination.total_pages} (${pagination.total_items} URLs)`,
            ),
            pagination.has_next
              ? h('a', { href: `#/extract/${encodeURIComponent(id)}?page=${page + 1}` }, 'Next →')
              : null,
          )
        : null;
    main.replaceChildren(
      h(
        'section',
        { className: 'card', id: 'extraction', 'data-status': status.status },
        backLink(),
        h('div', { className: 'card-head' }, h('h1', { className: 'mono' }, status.execution_id), chip(status.status)),
        status.error ? h('p', { className: 'error' }, status.error) : null,
        progressCell('extract', status),
        countsGrid(meta.result ?? {}),
        h('p', { className: 'muted' }, `Credits used: ${meta.credits_used ?? 0}`),
        meta.waiting_for
          ? h(
              'p',
              {},
              'Waiting for crawl ',
              h('a', { href: `#/crawl/${encodeURIComponent(meta.waiting_for)}` }, meta.waiting_for),
            )
          : null,
        timing(meta),
        h('h2', {}, 'Per-URL outcomes'),
        table,
        pager,
      ),
    );
    if (!FINISHED.has(status.status)) later(pollInterval('extract', status), load);
  };
  await load();
}

// ---------------------------------------------------------------- one crawl

async function showCrawl(id) {
  const mine = newView();
  setNav('executions');
  const load = async () => {
    let status;
    try {
      status = await api('GET', `/v2/crawl/${encodeURIComponent(id)}`);
    } catch (e) {
      if (current(mine) && e.status !== 401) notFound(id, e);
      return;
    }
    if (!current(mine)) return;
    const meta = status.meta ?? {};
    const steps = meta.steps ?? [];
    const found = meta.progress ?? {};
    main.replaceChildren(
      h(
        'section',
        { className: 'card', id: 'crawl', 'data-status': status.status },
        backLink(),
        h('div', { className: 'card-head' }, h('h1', { className: 'mono' }, status.execution_id), chip(status.status)),
        h('p', {}, 'Vendor ', h('strong', {}, meta.vendor ?? '')),
        status.error ? h('p', { className: 'error' }, status.error) : null,
        h(
          'ol',
          { className: 'steps', id: 'crawl-steps' },
          steps.map((step) =>
            h(
              'li',
              { 'data-step-status': step.status },
              h('span', { className: 'step-name' }, step.name),
              chip(step.status),
            ),
          ),
        ),
        h(
          'dl',
          { className: 'counts-grid' },
          h(
            'div',
            {},
            h('dt', {}, 'Collections'),
            h('dd', {}, String(found.collections_found ?? meta.result?.collections_total ?? 0)),
          ),
          h(
            'div',
            {},
            h('dt', {}, 'Listings'),
            h('dd', {}, String(found.listings_found ?? meta.result?.listings_total ?? 0)),
          ),
        ),
        timing(meta),
      ),
    );
    if (!FINISHED.has(status.status)) later(POLL_MS.crawl, load);
  };
  await load();
}

// ---------------------------------------------------------------- search

async function showSearch(query) {
  const mine = newView();
  setNav('search');
  const input = h('input', {
    id: 'search-query',
    type: 'search',
    placeholder: 'e.g. red linen dress under 80',
    value: query ?? '',
  });
  const results = h('div', { id: 'search-results', className: 'results' });
  const note = h('p', { className: 'muted', id: 'search-note' });
  main.append(
    h(
      'section',
      { className: 'card' },
      h('h1', {}, 'Search'),
      h(
        'form',
        {
          className: 'search-form',
          onsubmit: (event) => {
            event.preventDefault();
            const q = input.value.trim();
            if (q) location.hash = `#/search?q=${encodeURIComponent(q)}`;
          },
        },
        input,
        h('button', { type: 'submit', id: 'search-submit' }, 'Search'),
      ),
      note,
      results,
    ),
  );
  input.focus();
  if (!query) return;
  note.textContent = 'Searching…';
  let found;
  try {
    found = await api('POST', '/api/search', { query, limit: SEARCH_LIMIT });
  } catch (e) {
    if (current(mine)) note.textContent = e.status === 401 ? '' : e.message;
    return;
  }
  if (!current(mine)) return;
  const products = found?.products ?? [];
  const total = found.meta?.totalItems ?? products.length;
  note.textContent = products.length
    ? `${total} ${total === 1 ? 'product' : 'products'}${total > products.length ? `; the best ${products.length} shown` : ''}.`
    : 'Nothing found.';
  results.replaceChildren(
    ...products.map((p) => {
      const image = safeUrl(p.images?.primary) ?? safeUrl(p.images?.gallery?.[0]);
      const href = safeUrl(p.url);
      return h(
        'article',
        { className: 'result' },
        h('div', { className: 'thumb' }, image ? h('img', { src: image, alt: p.title ?? '', loading: 'lazy' }) : null),
        h(
          'h3',
          {},
          href ? h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, p.title ?? href) : (p.title ?? ''),
        ),
        h('p', { className: 'vendor muted' }, p.vendor ?? p.store_domain ?? ''),
        h('p', { className: 'price' }, formatPrice(p.price_amount, p.price_currency)),
      );
    }),
  );
}

// ---------------------------------------------------------------- routing

function setNav(name) {
  document.getElementById('nav').hidden = false;
  const session = document.getElementById('session');
  session.hidden = false;
  const key = getKey() ?? '';
  document.getElementById('key-hint').textContent = `key …${key.slice(-4)}`;
  for (const link of document.querySelectorAll('[data-nav]')) {
    link.classList.toggle('active', link.getAttribute('data-nav') === name);
  }
}

function route() {
  if (!getKey()) return showKeyForm();
  const hash = location.hash.replace(/^#/, '') || '/executions';
  const [path, search = ''] = hash.split('?');
  const params = new URLSearchParams(search);
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'extract' && parts[1]) return showExtraction(parts[1], Math.max(1, Number(params.get('page')) || 1));
  if (parts[0] === 'crawl' && parts[1]) return showCrawl(parts[1]);
  if (parts[0] === 'search') return showSearch(params.get('q'));
  return showExecutions();
}

document.getElementById('sign-out').addEventListener('click', () => {
  signOut('Key forgotten.');
  location.hash = '';
});
window.addEventListener('hashchange', route);
route();
