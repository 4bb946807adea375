// Runs one esbuild build with plugins (the synchronous API that CDK's local bundling needs has
// none) and prints its metafile: `node lib/bundle-worker.mjs '<json options>' '{"zodEnglishOnly":true,"cheerioLoadOnly":true,"stub":{...}}'`. Called by
// lib/bundle.ts only.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { brotliCompressSync, constants } from 'node:zlib';
import { build } from 'esbuild';

/**
 * zod's namespace export (`z.locales`) carries error messages in ~50 languages, a quarter of a
 * megabyte in every bundle; the service's messages are English (zod sets its default from `en`
 * directly), so the locale index keeps `en` only.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]zod[\\/]v4[\\/](?:classic|core)[\\/]/.test(args.importer)) return undefined;
      return { path: path.join(path.dirname(args.importer), '..', 'locales', 'index.js'), namespace: 'zod-locales' };
    });
    builder.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(path.join(path.dirname(args.path), 'en.js'))};`,
      loader: 'js',
      resolveDir: path.dirname(args.path),
    }));
  },
};

/**
 * Resolves `specifier` as esbuild normally would for this import, marked with `namespace` so the
 * asking plugin's own onResolve leaves that nested resolve alone.
 */
function resolveAs(builder, specifier, args, namespace) {
  return builder.resolve(specifier, {
    kind: args.kind,
    resolveDir: args.resolveDir,
    importer: args.importer,
    namespace,
  });
}

/**
 * cheerio's main module also exports loadBuffer, stringStream, decodeStream and fromURL, and
 * imports what they need at load (undici, and encoding-sniffer with iconv-lite's code-page
 * tables: 1.4 MB of the 3.6 MB every function shipped). The service only parses strings and
 * DOM nodes it already has (`load`), so `cheerio` resolves to the same `load` (same parse5 and
 * htmlparser2 parsing) without them. Using one of them would fail the build (no such export).
 */
const cheerioLoadOnly = {
  name: 'cheerio-load-only',
  setup(builder) {
    builder.onResolve({ filter: /^cheerio$/ }, async (args) => {
      if (args.namespace === 'cheerio-load-only') return undefined;
      const resolved = await resolveAs(builder, 'cheerio', args, 'cheerio-load-only');
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { path: resolved.path, namespace: 'cheerio-load-only' };
    });
    builder.onLoad({ filter: /.*/, namespace: 'cheerio-load-only' }, (args) => {
      const dir = path.dirname(args.path);
      return {
        contents: [
          `export * from ${JSON.stringify(path.join(dir, 'load-parse.js'))};`,
          `export { contains, merge } from ${JSON.stringify(path.join(dir, 'static.js'))};`,
        ].join('\n'),
        loader: 'js',
        resolveDir: dir,
      };
    });
  },
};

/**
 * The container's lazy capabilities a function may not call (lambdas/topology/capabilities.ts):
 * their `import()` in container.ts resolves to a module that throws a clear error, so their
 * chunks (and what only they import) are not in the asset. `stub`: { containerFile, specifiers:
 * { "<import specifier>": "<capability>" }, allowed: ["<capability>", ...] }.
 */
const capabilityStubs = (stub) => ({
  name: 'capability-stubs',
  setup(builder) {
    const allowed = new Set(stub.allowed);
    builder.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'dynamic-import' || path.resolve(args.importer) !== path.resolve(stub.containerFile))
        return undefined;
      const capability = stub.specifiers[args.path];
      if (capability === undefined || allowed.has(capability)) return undefined;
      return { path: capability, namespace: 'capability-stub' };
    });
    builder.onLoad({ filter: /.*/, namespace: 'capability-stub' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(
        `The lazy capability "${args.path}" is not in this function's bundle: add it to the function's list in lambdas/topology/capabilities.ts`,
      )});`,
      loader: 'js',
    }));
  },
});

/**
 * A Lambda's credentials are its environment's (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN, set by the runtime): the SDK's default chain (SSO, ini files, processes,
 * web identity, container and instance metadata, with their STS/SSO clients: ~80 KB in every
 * asset) is never reached there. In the Lambda bundles it is the environment provider alone,
 * memoized like the chain; a missing variable fails with fromEnv's own error.
 */
const lambdaCredentials = {
  name: 'lambda-credentials',
  setup(builder) {
    builder.onResolve({ filter: /^@aws-sdk\/credential-provider-node$/ }, (args) => ({
      path: 'credential-provider-node',
      namespace: 'lambda-credentials',
      pluginData: { resolveDir: args.resolveDir },
    }));
    builder.onLoad({ filter: /.*/, namespace: 'lambda-credentials' }, (args) => ({
      contents: [
        "import { fromEnv } from '@aws-sdk/credential-provider-env';",
        'const REFRESH_MS = 300_000;',
        'export const credentialsWillNeedRefresh = (c) => c?.expiration !== undefined;',
        'export const credentialsTreatedAsExpired = (c) => c?.expiration !== undefined && c.expiration.getTime() - Date.now() < REFRESH_MS;',
        'export const defaultProvider = (init = {}) => {',
        '  let pending;',
        '  return async () => {',
        '    if (pending) { const held = await pending.catch(() => undefined); if (held && !credentialsTreatedAsExpired(held)) return held; }',
        '    pending = fromEnv(init)();',
        '    return pending;',
        '  };',
        '};',
      ].join('\n'),
      loader: 'js',
      resolveDir: args.pluginData.resolveDir,
    }));
  },
};

/**
 * The enrichment's data files (the Shopify taxonomy's 10,595 categories, the colour names: 390 KB
 * of JSON) are brotli-compressed in the asset (about a quarter of the size, as base64) and
 * decompressed when their chunk is imported: on the first taxonomy or colour lookup, never at
 * init (lambdas/domain/enrichment/taxonomy.ts and colour.ts import them with `import()`). The same
 * JSON, so the same values.
 */
const compressedData = {
  name: 'compressed-data',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]lambdas[\\/]domain[\\/]enrichment[\\/]data[\\/][^\\/]+\.json$/ }, (args) => {
      const raw = readFileSync(args.path);
      JSON.parse(raw.toString('utf8')); // a broken file fails the build, not the first lookup
      const packed = brotliCompressSync(raw, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 11,
          [constants.BROTLI_PARAM_LGWIN]: 24,
          [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
        },
      }).toString('base64');
      return {
        contents: [
          "import { brotliDecompressSync } from 'node:zlib';",
          `export default JSON.parse(brotliDecompressSync(Buffer.from(${JSON.stringify(packed)}, 'base64')).toString('utf8'));`,
        ].join('\n'),
        loader: 'js',
      };
    });
  },
};

/**
 * The extraction engine parses with htmlparser2 (lambdas/domain/extraction/document.ts loads
 * cheerio with `xml` options, which cheerio hands to htmlparser2 and dom-serializer), yet
 * cheerio's `load` also imports parse5, its tree adapter and a second copy of the entities
 * tables (~240 KB) for the default options. For the extraction modules `cheerio` is the same
 * `load` over htmlparser2 alone (cheerio's own `cheerio/slim` parts), with a guard: a load with
 * the default (parse5) options throws a clear error instead of parsing differently. Other
 * importers (the crawl's parsing) keep parse5.
 */
const cheerioHtmlparser2ForExtraction = {
  name: 'cheerio-htmlparser2-for-extraction',
  setup(builder) {
    builder.onResolve({ filter: /^cheerio$/ }, async (args) => {
      // Not a resolve this or another plugin asked for (their namespaces): a file's own import only.
      if (args.namespace !== 'file') return undefined;
      if (!/[\\/]lambdas[\\/]domain[\\/]extraction[\\/]/.test(args.importer)) return undefined;
      const resolved = await resolveAs(builder, 'cheerio', args, 'cheerio-htmlparser2');
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { path: resolved.path, namespace: 'cheerio-htmlparser2' };
    });
    builder.onLoad({ filter: /.*/, namespace: 'cheerio-htmlparser2' }, (args) => {
      const dir = path.dirname(args.path);
      const file = (name) => JSON.stringify(path.join(dir, name));
      const message =
        'cheerio with parse5 (the default options) is not in the extraction bundle: the engine parses with htmlparser2 (PARSE_OPTIONS in lambdas/domain/extraction/document.ts)';
      return {
        contents: [
          `import { getLoad } from ${file('load.js')};`,
          `import { getParse } from ${file('parse.js')};`,
          "import render from 'dom-serializer';",
          "import { parseDocument } from 'htmlparser2';",
          `export { contains, merge } from ${file('static.js')};`,
          `const htmlparser2Only = (options) => { if (!options || !options._useHtmlParser2) throw new Error(${JSON.stringify(message)}); };`,
          'export const load = getLoad(',
          '  getParse((content, options) => { htmlparser2Only(options); return parseDocument(content, options); }),',
          '  (dom, options) => { htmlparser2Only(options); return render(dom, options); },',
          ');',
        ].join('\n'),
        loader: 'js',
        resolveDir: dir,
      };
    });
  },
};

/**
 * entities 4.5 ships the same code twice, as CommonJS (lib/) and as ESM (lib/esm/): sanitize-html's
 * htmlparser2 8 requires the first, dom-serializer imports the second, and both copies of its
 * decoding and encoding tables (~70 KB each) landed in the asset. A CommonJS file of entities
 * resolves to its ESM twin (same version, same code).
 */
const entitiesOneCopy = {
  name: 'entities-one-copy',
  setup(builder) {
    builder.onResolve({ filter: /^entities(?:\/.*)?$/ }, async (args) => {
      if (args.namespace !== 'file') return undefined;
      const resolved = await resolveAs(builder, args.path, args, 'entities-one-copy');
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      const match = resolved.path.match(/^(.*[\\/]node_modules[\\/]entities[\\/]lib)[\\/](?!esm[\\/])(.+\.js)$/);
      if (!match) return { path: resolved.path, sideEffects: resolved.sideEffects };
      const twin = path.join(match[1], 'esm', match[2]);
      return existsSync(twin) ? { path: twin } : { path: resolved.path, sideEffects: resolved.sideEffects };
    });
  },
};

/**
 * tldts's Public Suffix List (its data/trie.js: typed arrays written as decimal literals and the
 * labels' text, 140 KB in every asset, since the affiliate merchants' domains are checked in the
 * composition root) is the same arrays and text packed as bytes and brotli-compressed (~50 KB as
 * base64). It is unpacked when the module is evaluated, as the original's literals are: tldts
 * derives its lookup tables from them at import anyway (about a millisecond), and unpacking
 * adds about one more.
 */
const compactSuffixList = {
  name: 'compact-suffix-list',
  setup(builder) {
    builder.onLoad(
      { filter: /[\\/]node_modules[\\/]tldts[\\/]dist[\\/]es6[\\/]src[\\/]data[\\/]trie\.js$/ },
      async (args) => {
        const trie = await import(pathToFileURL(args.path).href);
        const parts = [];
        const lines = [];
        let offset = 0;
        for (const [name, value] of Object.entries(trie)) {
          if (typeof value === 'number') lines.push(`export const ${name} = ${JSON.stringify(value)};`);
          else if (typeof value === 'string') {
            const bytes = Buffer.from(value, 'utf8');
            parts.push(bytes);
            lines.push(`export const ${name} = bytes.toString('utf8', ${offset}, ${offset + bytes.length});`);
            offset += bytes.length;
          } else if (value instanceof Uint8Array || value instanceof Uint16Array) {
            const width = value.BYTES_PER_ELEMENT;
            const bytes = Buffer.alloc(value.length * width);
            for (let i = 0; i < value.length; i++) bytes.writeUIntLE(value[i], i * width, width);
            parts.push(bytes);
            lines.push(
              `export const ${name} = unpack(${value.constructor.name}, ${offset}, ${value.length}, ${width});`,
            );
            offset += bytes.length;
          } else throw new Error(`tldts data/trie.js: cannot pack the export ${name}`);
        }
        const packed = brotliCompressSync(Buffer.concat(parts), {
          params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24 },
        }).toString('base64');
        return {
          contents: [
            "import { brotliDecompressSync } from 'node:zlib';",
            `const bytes = brotliDecompressSync(Buffer.from(${JSON.stringify(packed)}, 'base64'));`,
            '// Little-endian, whatever the machine.',
            'function unpack(Type, at, length, width) {',
            '  const array = new Type(length);',
            '  for (let i = 0; i < length; i++) array[i] = width === 1 ? bytes[at + i] : bytes[at + 2 * i] | (bytes[at + 2 * i + 1] << 8);',
            '  return array;',
            '}',
            ...lines,
          ].join('\n'),
          loader: 'js',
        };
      },
    );
  },
};

/**
 * Dead code that tree shaking cannot see: a dependency imported at the top of a module but only
 * called under an option the service never sets. Each is replaced by a module with the same
 * exports that throws a clear error when used.
 * - sanitize-html parses `style` attributes with postcss (and its source-map-js and picocolors,
 *   ~90 KB): the service allows no `style` attribute (lambdas/domain/extraction/normalise.ts),
 *   so postcss is never called.
 * - got loads http2-wrapper (its `http2` option) and cacheable-request with keyv and
 *   http-cache-semantics (its `cache` option) at import: the fetcher (lambdas/adapters/http-fetch)
 *   sets neither. got's catch checks `instanceof CacheError`, which stays a class never thrown.
 * - zod's classic API re-exports fromJSONSchema (12 KB), which nothing in the service calls.
 * - aws-xray-sdk-core (Powertools' tracer) requires semver for captureAWS, the SDK v2 patcher;
 *   the service's clients are SDK v3.
 */
const UNUSED = [
  {
    name: './from-json-schema.js',
    importer: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]classic[\\/]external\.js$/,
    why: 'z.fromJSONSchema builds schemas from JSON Schema documents; the service defines its schemas in code (lambdas/contracts) and only renders them (z.toJSONSchema)',
    contents: (fail) => `export function fromJSONSchema() { ${fail} }`,
  },
  {
    name: 'semver',
    importer: /[\\/]node_modules[\\/]aws-xray-sdk-core[\\/]/,
    why: "aws-xray-sdk-core checks the AWS SDK v2's version with it in captureAWS; the service traces SDK v3 clients (Powertools' captureAWSv3Client)",
    contents: (fail) => `export function gte() { ${fail} }\nexport default { gte };`,
  },
  {
    name: 'postcss',
    importer: /[\\/]node_modules[\\/]sanitize-html[\\/]/,
    why: 'sanitize-html parses style attributes with it; the service allows no style attribute (lambdas/domain/extraction/normalise.ts)',
    contents: (fail) => `export function parse() { ${fail} }\nexport default { parse };`,
  },
  {
    name: 'http2-wrapper',
    importer: /[\\/]node_modules[\\/]got[\\/]/,
    why: "got's http2 option, which the fetcher never sets (lambdas/adapters/http-fetch)",
    contents: (fail) => `export default new Proxy({}, { get() { ${fail} } });`,
  },
  {
    name: 'cacheable-request',
    importer: /[\\/]node_modules[\\/]got[\\/]/,
    why: "got's cache option, which the fetcher never sets (lambdas/adapters/http-fetch)",
    contents: (fail) =>
      `export class CacheError extends Error {}\nexport default class CacheableRequest { constructor() { ${fail} } }`,
  },
];
const unusedDependencies = {
  name: 'unused-dependencies',
  setup(builder) {
    for (const unused of UNUSED) {
      const filter = new RegExp(`^${unused.name.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&')}$`);
      builder.onResolve({ filter }, (args) =>
        unused.importer.test(args.importer) ? { path: unused.name, namespace: 'unused-dependency' } : undefined,
      );
    }
    builder.onLoad({ filter: /.*/, namespace: 'unused-dependency' }, (args) => {
      const unused = UNUSED.find((u) => u.name === args.path);
      const fail = `throw new Error(${JSON.stringify(`${unused.name} is not in this bundle: ${unused.why}`)});`;
      return { contents: unused.contents(fail), loader: 'js' };
    });
  },
};

const options = JSON.parse(process.argv[2]);
const flags = JSON.parse(process.argv[3] ?? '{}');
const result = await build({
  ...options,
  metafile: true,
  logLevel: 'warning',
  plugins: [
    ...(flags.stub ? [capabilityStubs(flags.stub)] : []),
    ...(flags.lambdaCredentials ? [lambdaCredentials] : []),
    ...(flags.zodEnglishOnly ? [zodEnglishOnly] : []),
    ...(flags.trimmed
      ? [compressedData, compactSuffixList, cheerioHtmlparser2ForExtraction, entitiesOneCopy, unusedDependencies]
      : []),
    ...(flags.cheerioLoadOnly ? [cheerioLoadOnly] : []),
  ],
});
process.stdout.write(JSON.stringify(result.metafile));
