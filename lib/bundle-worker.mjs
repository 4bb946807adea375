// Runs one esbuild build with plugins (the synchronous API that CDK's local bundling needs has
// none) and prints its metafile: `node lib/bundle-worker.mjs '<json options>' '{"zodEnglishOnly":true,"cheerioLoadOnly":true,"stub":{...}}'`. Called by
// lib/bundle.ts only.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliCompressSync, constants } from 'node:zlib';
import { createHash } from 'node:crypto';
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
 * { "<import specifier>": "<capability>" }, allowed: ["<capability>", ...], inline: ["<import specifier>", ...] }.
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
    // Held capabilities whose chunk would cost more in import lists than it saves (stub.inline:
    // their specifiers): their `import()` in container.ts becomes a static import, as before they
    // were lazy, so the function's asset is not larger for the split.
    const inline = stub.inline ?? [];
    if (inline.length > 0)
      builder.onLoad({ filter: /[\\/]composition[\\/]container\.ts$/ }, (args) => {
        if (path.resolve(args.path) !== path.resolve(stub.containerFile)) return undefined;
        let source = readFileSync(args.path, 'utf8');
        const heads = inline.map((specifier, i) => {
          const call = `import('${specifier}')`;
          if (!source.includes(call)) throw new Error(`${args.path} has no ${call} to make static`);
          source = source.split(call).join(`Promise.resolve(inlineCapability${i})`);
          return `import * as inlineCapability${i} from '${specifier}';`;
        });
        return { contents: `${heads.join('\n')}\n${source}`, loader: 'ts', resolveDir: path.dirname(args.path) };
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
 * Data packed by the plugins below is a brotli-compressed file of the asset beside the chunk that
 * reads it (esbuild's file loader: listed in the metafile, so counted and kept with its chunk),
 * read and decompressed when that chunk is evaluated. A file rather than a base64 string in the
 * code: a third smaller, and the same bytes. Identical data is one file.
 */
const packedFiles = new Map(); // content hash -> compressed bytes

/** The statements that put the decompressed `bytes` (a Buffer) in scope for a module reading `raw`. */
function packedBytes(raw) {
  const packed = brotliCompressSync(raw, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_LGWIN]: 24,
      [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
  const hash = createHash('sha256').update(packed).digest('hex').slice(0, 16);
  packedFiles.set(hash, packed);
  return [
    "import { readFileSync } from 'node:fs';",
    "import { brotliDecompressSync } from 'node:zlib';",
    `import packedFile from ${JSON.stringify(`packed-file:${hash}`)};`,
    'const bytes = brotliDecompressSync(readFileSync(new URL(packedFile, import.meta.url)));',
  ];
}

const packedFilesLoader = {
  name: 'packed-files',
  setup(builder) {
    builder.onResolve({ filter: /^packed-file:/ }, (args) => ({
      path: `${args.path.slice('packed-file:'.length)}.br`,
      namespace: 'packed-file',
    }));
    builder.onLoad({ filter: /.*/, namespace: 'packed-file' }, (args) => {
      const bytes = packedFiles.get(args.path.replace(/\.br$/, ''));
      if (!bytes) throw new Error(`no packed file ${args.path}`);
      return { contents: bytes, loader: 'file' };
    });
  },
};

/**
 * The enrichment's data files (the Shopify taxonomy's 10,595 categories, the colour names: 390 KB
 * of JSON) are brotli-compressed files in the asset (a fifth of the size; packedBytes) and
 * decompressed when their chunk is imported: on the first taxonomy or colour lookup, never at
 * init (lambdas/domain/enrichment/taxonomy.ts and colour.ts import them with `import()`). The same
 * values: the colours' JSON as is, the taxonomy as an outline that gives its very value back
 * (taxonomyOutline checks it at build time, or packs the JSON).
 */
const compressedData = {
  name: 'compressed-data',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]lambdas[\\/]domain[\\/]enrichment[\\/]data[\\/][^\\/]+\.json$/ }, (args) => {
      const raw = readFileSync(args.path);
      const data = JSON.parse(raw.toString('utf8')); // a broken file fails the build, not the first lookup
      const outline = taxonomyOutline(data);
      if (outline !== undefined)
        return {
          contents: [
            ...packedBytes(Buffer.from(outline, 'utf8')),
            `${fromTaxonomyOutline.toString()}`,
            "export default fromTaxonomyOutline(bytes.toString('utf8'));",
          ].join('\n'),
          loader: 'js',
        };
      return {
        contents: [...packedBytes(raw), "export default JSON.parse(bytes.toString('utf8'));"].join('\n'),
        loader: 'js',
      };
    });
  },
};

/**
 * The taxonomy file ({ source, version, categories: [[id, name], ...] }, parents before their
 * children, an id being its parent's plus `-<n>`) as an outline, a quarter smaller compressed:
 * the header's JSON, then a line per category, indented by its depth (tabs), a root with its id
 * before its name, a child with `#<n> ` only when its number is not its previous sibling's plus
 * one. Undefined (packed as JSON instead) when the file is not such a tree or the outline would
 * not give the very same value back.
 */
function taxonomyOutline(data) {
  if (!data || !Array.isArray(data.categories) || Object.keys(data).join() !== 'source,version,categories')
    return undefined;
  const lines = [JSON.stringify({ source: data.source, version: data.version })];
  const next = new Map();
  for (const entry of data.categories) {
    if (!Array.isArray(entry) || entry.length !== 2) return undefined;
    const [id, name] = entry;
    if (typeof id !== 'string' || typeof name !== 'string' || /[\t\n]/.test(name) || name.startsWith('#'))
      return undefined;
    const parts = id.split('-');
    const depth = parts.length - 1;
    if (depth === 0) {
      if (!/^[^\s#-]+$/.test(id)) return undefined;
      lines.push(`${id} ${name}`);
    } else {
      const parent = parts.slice(0, -1).join('-');
      const n = Number(parts[depth]);
      if (!/^[1-9]\d*$/.test(parts[depth])) return undefined;
      const expected = next.get(parent) ?? 1;
      lines.push(`${'\t'.repeat(depth)}${n === expected ? '' : `#${n} `}${name}`);
      next.set(parent, n + 1);
    }
  }
  const outline = lines.join('\n');
  return JSON.stringify(fromTaxonomyOutline(outline)) === JSON.stringify(data) ? outline : undefined;
}

/** The taxonomy file's value from its outline (taxonomyOutline); its source is also the asset's decoder. */
function fromTaxonomyOutline(text) {
  const lines = text.split('\n');
  const { source, version } = JSON.parse(lines[0]);
  const categories = [];
  const path = []; // path[d]: the last category at depth d, and its next child's number
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    let depth = 0;
    while (line.charCodeAt(depth) === 9) depth++;
    let name = line.slice(depth);
    let id;
    if (depth === 0) {
      const space = name.indexOf(' ');
      id = name.slice(0, space);
      name = name.slice(space + 1);
    } else {
      const parent = path[depth - 1];
      let n = parent.next;
      if (name.startsWith('#')) {
        const space = name.indexOf(' ');
        n = Number(name.slice(1, space));
        name = name.slice(space + 1);
      }
      parent.next = n + 1;
      id = `${parent.id}-${n}`;
    }
    path[depth] = { id, next: 1 };
    path.length = depth + 1;
    categories.push([id, name]);
  }
  return { source, version, categories };
}

/**
 * JSON data of dependencies, packed the same way: the AWS SDK's partitions (every asset), and aws-xray-sdk-core's list of the AWS calls whose
 * parameters its subsegments record (resources/aws_whitelist.json, 10 KB minified, in every asset
 * since the tracer is), read when the tracer is first loaded. The X-Ray SDK `require()`s it, so
 * each top-level key is also a named export (what `require` of this module answers).
 */
const packedDependencyJson = {
  name: 'packed-dependency-json',
  setup(builder) {
    // The AWS SDK's partitions and regions (@aws-sdk/core's util-endpoints, 5 KB minified in
    // every asset): a module exporting one JSON literal, packed as the same JSON.
    builder.onLoad(
      {
        filter:
          /[\\/]node_modules[\\/]@aws-sdk[\\/]core[\\/]dist-es[\\/]submodules[\\/]client[\\/]util-endpoints[\\/]lib[\\/]aws[\\/]partitions\.js$/,
      },
      (args) => {
        const match = /^export const partitionsInfo = ([\s\S]*);\s*$/.exec(readFileSync(args.path, 'utf8'));
        if (!match) throw new Error(`${args.path}: not the one JSON literal export packed here`);
        const json = JSON.stringify(JSON.parse(match[1]));
        return {
          contents: [
            ...packedBytes(Buffer.from(json, 'utf8')),
            "export const partitionsInfo = JSON.parse(bytes.toString('utf8'));",
          ].join('\n'),
          loader: 'js',
        };
      },
    );
    builder.onLoad(
      { filter: /[\\/]node_modules[\\/]aws-xray-sdk-core[\\/]dist[\\/]lib[\\/]resources[\\/]aws_whitelist\.json$/ },
      (args) => {
        const raw = readFileSync(args.path);
        const data = JSON.parse(raw.toString('utf8'));
        const keys = Object.keys(data);
        if (keys.some((key) => !/^[A-Za-z_$][\w$]*$/.test(key)))
          throw new Error(`${args.path}: a top-level key that is no identifier`);
        return {
          contents: [
            ...packedBytes(raw),
            "const data = JSON.parse(bytes.toString('utf8'));",
            ...keys.map((key) => `export const ${key} = data.${key};`),
            'export default data;',
          ].join('\n'),
          loader: 'js',
        };
      },
    );
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
/**
 * `cheerio` for the importers under `importerDir` (a pattern on the importer's path) resolves to a
 * module of cheerio's own parts: `contents(file)` writes it, `file(name)` naming a file of cheerio.
 */
function cheerioFor(name, importerDir, contents) {
  return {
    name,
    setup(builder) {
      builder.onResolve({ filter: /^cheerio$/ }, async (args) => {
        // Not a resolve this or another plugin asked for (their namespaces): a file's own import only.
        if (args.namespace !== 'file') return undefined;
        if (!importerDir.test(args.importer)) return undefined;
        const resolved = await resolveAs(builder, 'cheerio', args, name);
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        return { path: resolved.path, namespace: name };
      });
      builder.onLoad({ filter: /.*/, namespace: name }, (args) => {
        const dir = path.dirname(args.path);
        const file = (fileName) => JSON.stringify(path.join(dir, fileName));
        return { contents: contents(file).join('\n'), loader: 'js', resolveDir: dir };
      });
    },
  };
}

const HTMLPARSER2_ONLY =
  'cheerio with parse5 (the default options) is not in the extraction bundle: the engine parses with htmlparser2 (PARSE_OPTIONS in lambdas/domain/extraction/document.ts)';
const cheerioHtmlparser2ForExtraction = cheerioFor(
  'cheerio-htmlparser2',
  /[\\/]lambdas[\\/]domain[\\/]extraction[\\/]/,
  (file) => [
    `import { getLoad } from ${file('load.js')};`,
    `import { getParse } from ${file('parse.js')};`,
    "import render from 'dom-serializer';",
    "import { parseDocument } from 'htmlparser2';",
    `export { contains, merge } from ${file('static.js')};`,
    `const htmlparser2Only = (options) => { if (!options || !options._useHtmlParser2) throw new Error(${JSON.stringify(HTMLPARSER2_ONLY)}); };`,
    'export const load = getLoad(',
    '  getParse((content, options) => { htmlparser2Only(options); return parseDocument(content, options); }),',
    '  (dom, options) => { htmlparser2Only(options); return render(dom, options); },',
    ');',
  ],
);

/**
 * The crawl's page parsing (lambdas/domain/crawl/parse.ts) loads cheerio with its default options,
 * which parse with parse5; cheerio's `load` also imports htmlparser2 (and its entities 7 decoding
 * tables: ~45 KB) for `xml` options the crawl never passes. For the crawl's modules `cheerio` is
 * the same `load` over parse5 alone (cheerio's own load-parse.js without the htmlparser2 branch),
 * with a guard: a load with htmlparser2 options throws a clear error instead of parsing differently.
 */
const PARSE5_ONLY =
  "cheerio with htmlparser2 (xml options) is not in the crawl's bundle: the crawl parses with parse5 (cheerio's default options, lambdas/domain/crawl/parse.ts)";
const cheerioParse5ForCrawl = cheerioFor('cheerio-parse5', /[\\/]lambdas[\\/]domain[\\/]crawl[\\/]/, (file) => [
  `import { getLoad } from ${file('load.js')};`,
  `import { getParse } from ${file('parse.js')};`,
  `import { renderWithParse5, parseWithParse5 } from ${file('parsers/parse5-adapter.js')};`,
  `export { contains, merge } from ${file('static.js')};`,
  `const parse5Only = (options) => { if (options && options._useHtmlParser2) throw new Error(${JSON.stringify(PARSE5_ONLY)}); };`,
  'export const load = getLoad(',
  '  getParse((content, options, isDocument, context) => { parse5Only(options); return parseWithParse5(content, options, isDocument, context); }),',
  '  (dom, options) => { parse5Only(options); return renderWithParse5(dom); },',
  ');',
]);

/**
 * fast-xml-parser (sitemaps, lambdas/domain/extraction/sitemap.ts) checks the values of a
 * document's own entities with is-unsafe in its HTML and XML contexts only, yet is-unsafe's index
 * labels all nine of its contexts at load (SQL, shell, ReDoS, NoSQL, log... 12 KB kept by those
 * assignments). For fast-xml-parser its index is the same source without the seven other contexts:
 * the statements naming them are removed, each checked to be there, so a changed is-unsafe fails
 * the build rather than bundle something else.
 */
const UNSAFE_CONTEXTS_UNUSED = ['SVG', 'SQL', 'SHELL', 'REDOS', 'NOSQL', 'LOG', 'SQL_STRICT'];
const isUnsafeMarkupOnly = {
  name: 'is-unsafe-markup-only',
  setup(builder) {
    builder.onResolve({ filter: /^is-unsafe$/ }, async (args) => {
      if (args.namespace !== 'file' || !/[\\/]node_modules[\\/]fast-xml-parser[\\/]/.test(args.importer))
        return undefined;
      const resolved = await resolveAs(builder, args.path, args, 'is-unsafe-markup-only');
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { path: resolved.path, namespace: 'is-unsafe-markup-only' };
    });
    builder.onLoad({ filter: /.*/, namespace: 'is-unsafe-markup-only' }, (args) => {
      let source = readFileSync(args.path, 'utf8');
      const names = UNSAFE_CONTEXTS_UNUSED.join('|');
      const statements = [
        new RegExp(`^export \\{ default as (?:${names})\\s*\\} from '[^']+';$`, 'gm'),
        new RegExp(`^import (?:${names})\\s+from '[^']+';$`, 'gm'),
        /^export \{ SQL_STRICT \};$/gm,
        new RegExp(`^(?:${names})\\.(?:label|decodeEntities)\\s*=\\s*[^;\\n]+;$`, 'gm'),
        /^export const VALID_CONTEXTS = Object\.freeze\(\{[^}]*\}\);$/gm,
      ];
      const expected = [6, 7, 1, 8, 1];
      statements.forEach((pattern, i) => {
        const found = source.match(pattern)?.length ?? 0;
        if (found !== expected[i])
          throw new Error(`is-unsafe: ${found} statements match ${pattern}, expected ${expected[i]}`);
        source = source.replace(pattern, '');
      });
      if (new RegExp(`\\b(?:${names})\\b`).test(source.replace(/\/\/.*$|\/\*[\s\S]*?\*\/|^\s*\*.*$/gm, '')))
        throw new Error('is-unsafe: a removed context is still named in its index');
      return { contents: source, loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

/**
 * The AWS SDK clients import their whole package.json for its version (the user agent), the
 * X-Ray SDK for its name and version (segments' sdk fields): 2 KB each, ~8 KB per asset. They get
 * { name, version } alone; the build fails if the code reading it names another field.
 */
const PACKAGE_INFO = [
  {
    file: /[\\/]node_modules[\\/]@aws-sdk[\\/]client-[\w-]+[\\/]package\.json$/,
    readers: ['dist-es/runtimeConfig.js'],
    name: 'packageInfo',
  },
  {
    file: /[\\/]node_modules[\\/]aws-xray-sdk-core[\\/]package\.json$/,
    readers: ['dist/lib/aws-xray.js'],
    name: 'pkginfo',
  },
];
const packageInfoOnly = {
  name: 'package-info-only',
  setup(builder) {
    for (const info of PACKAGE_INFO)
      builder.onLoad({ filter: info.file }, (args) => {
        const dir = path.dirname(args.path);
        for (const reader of info.readers) {
          const source = readFileSync(path.join(dir, reader), 'utf8');
          const fields = [...source.matchAll(new RegExp(`\\b${info.name}\\b(\\.\\w+)?`, 'g'))].map((m) => m[1]);
          const other = fields.filter((field) => field !== undefined && field !== '.name' && field !== '.version');
          // Besides reads of .name and .version, only its import or assignment (`pkginfo = require(...)`).
          if (other.length > 0 || fields.filter((field) => field === undefined).length > 3)
            throw new Error(`${reader} of ${dir} reads more of its package.json than its name and version`);
        }
        const { name, version } = JSON.parse(readFileSync(args.path, 'utf8'));
        return { contents: JSON.stringify({ name, version }), loader: 'json' };
      });
  },
};

/**
 * dom-serializer (the engine's cheerio renders with it) imports encodeXML, escapeAttribute and
 * escapeText from entities 4.5's index, which re-exports them from its escape.js; the index also
 * imports its decoder, whose module builds decoders at load, so the decoding trie (~16 KB packed)
 * and code (~5 KB) came along unused. For dom-serializer `entities` is that escape.js: the very
 * functions the index re-exports. The build fails if dom-serializer imports another name.
 */
const domSerializerEscapeOnly = {
  name: 'dom-serializer-escape-only',
  setup(builder) {
    builder.onResolve({ filter: /^entities$/ }, async (args) => {
      if (args.namespace !== 'file' || !/[\\/]node_modules[\\/]dom-serializer[\\/]lib[\\/]esm[\\/]/.test(args.importer))
        return undefined;
      const names = [...readFileSync(args.importer, 'utf8').matchAll(/import\s*\{([^}]*)\}\s*from\s*["']entities["']/g)]
        .flatMap((match) => match[1].split(','))
        .map((name) => name.trim())
        .filter(Boolean);
      const resolved = await resolveAs(builder, 'entities', args, 'dom-serializer-escape-only');
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      const escapeModule = path.join(path.dirname(resolved.path), 'escape.js');
      const index = readFileSync(resolved.path, 'utf8');
      const reexported = /export\s*\{([^}]*)\}\s*from\s*"\.\/escape\.js"/
        .exec(index)?.[1]
        .split(',')
        .map((name) => name.trim());
      if (names.length === 0 || !reexported || names.some((name) => !reexported.includes(name)))
        throw new Error(
          `dom-serializer imports ${names.join(', ')} from entities, not only what its index re-exports from escape.js`,
        );
      return { path: escapeModule, sideEffects: false };
    });
  },
};

/**
 * entities 4.5 ships the same code twice, as CommonJS (lib/) and as ESM (lib/esm/): the crawl's
cheerio over htmlparser2 8 requires the first, dom-serializer imports the second, and both copies of its
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
            // 16-bit values as their low bytes, then their high bytes (compresses better than interleaved).
            for (let i = 0; i < value.length; i++) {
              bytes[i] = value[i] & 0xff;
              if (width === 2) bytes[value.length + i] = value[i] >> 8;
            }
            parts.push(bytes);
            lines.push(
              `export const ${name} = unpack(${value.constructor.name}, ${offset}, ${value.length}, ${width});`,
            );
            offset += bytes.length;
          } else throw new Error(`tldts data/trie.js: cannot pack the export ${name}`);
        }
        return {
          contents: [
            ...packedBytes(Buffer.concat(parts)),
            'function unpack(Type, at, length, width) {',
            '  const array = new Type(length);',
            '  for (let i = 0; i < length; i++) array[i] = width === 1 ? bytes[at + i] : bytes[at + i] | (bytes[at + length + i] << 8);',
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
 * - zod's classic API re-exports fromJSONSchema (12 KB), which nothing in the service calls.
 */
const UNUSED = [
  {
    name: './from-json-schema.js',
    importer: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]classic[\\/]external\.js$/,
    why: 'z.fromJSONSchema builds schemas from JSON Schema documents; the service defines its schemas in code (lambdas/contracts) and only renders them (z.toJSONSchema)',
    contents: (fail) => `export function fromJSONSchema() { ${fail} }`,
  },
  {
    name: 'postcss',
    importer: /[\\/]node_modules[\\/]sanitize-html[\\/]/,
    why: 'sanitize-html parses style attributes with it; the service allows no style attribute (lambdas/domain/extraction/normalise.ts)',
    contents: (fail) => `export function parse() { ${fail} }\nexport default { parse };`,
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

/**
 * The entities package's tables (HTML named character references): its decoding trie (a
 * Uint16Array written as a 47 KB string literal) and its encoding map (nested Maps written as
 * array literals, 27 KB). Three versions are installed (4.5 for dom-serializer and sanitize-html's
 * htmlparser2, 6 for parse5, 7 for htmlparser2 10), and 4.5's and 6's decoding tries are the same
 * 15,242 numbers. Each table module is replaced by one that exports the same value, built from
 * the same numbers packed as bytes and brotli-compressed (a third of the size as base64), unpacked
 * when the module is evaluated as the original's literal is; identical tables are one module.
 */
const packedEntityTables = {
  name: 'packed-entity-tables',
  setup(builder) {
    const tables = new Map(); // content hash -> module source
    builder.onLoad(
      {
        filter:
          /[\\/]node_modules[\\/](?:.+[\\/])?entities[\\/](?:lib|dist)[\\/]esm[\\/]generated[\\/](?:decode-data-html|encode-html)\.js$/,
      },
      async (args) => {
        const real = await import(pathToFileURL(args.path).href);
        const lines = [];
        for (const [name, value] of Object.entries(real)) {
          const source = packTable(value, args.path);
          const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
          tables.set(hash, source);
          lines.push(
            name === 'default'
              ? `export { table as default } from ${JSON.stringify(`packed-entities:${hash}`)};`
              : `export { table as ${name} } from ${JSON.stringify(`packed-entities:${hash}`)};`,
          );
        }
        return { contents: lines.join('\n'), loader: 'js' };
      },
    );
    builder.onResolve({ filter: /^packed-entities:/ }, (args) => ({
      path: args.path,
      namespace: 'packed-entities',
      // Reading a table is no side effect: an unused one is left out, as its package says (sideEffects: false).
      sideEffects: false,
    }));
    builder.onLoad({ filter: /.*/, namespace: 'packed-entities' }, (args) => {
      const source = tables.get(args.path.slice('packed-entities:'.length));
      if (!source) throw new Error(`no packed entities table ${args.path}`);
      return { contents: source, loader: 'js' };
    });
  },
};

/** A module exporting `table`: the Uint16Array, or the Map (of strings, numbers and nested Maps in plain objects), packed. */
function packTable(value, file) {
  if (value instanceof Uint16Array) {
    const bytes = Buffer.alloc(value.length * 2);
    // The low bytes, then the high bytes (compresses better than interleaved).
    for (let i = 0; i < value.length; i++) {
      bytes[i] = value[i] & 0xff;
      bytes[value.length + i] = value[i] >> 8;
    }
    return [
      ...packedBytes(bytes),
      `export const table = new Uint16Array(${value.length});`,
      'for (let i = 0; i < table.length; i++) table[i] = bytes[i] | (bytes[table.length + i] << 8);',
    ].join('\n');
  }
  if (value instanceof Map) {
    // A Map becomes {"\u0000": [[key, value], ...]} (no table key starts with NUL), in its order.
    const json = JSON.stringify(value, (_key, v) => {
      if (v instanceof Map) return { '\u0000': [...v] };
      if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) !== Object.prototype)
        throw new Error(`${file}: cannot pack a ${v.constructor?.name}`);
      return v;
    });
    return [
      ...packedBytes(Buffer.from(json, 'utf8')),
      "export const table = JSON.parse(bytes.toString('utf8'), (_key, v) => (v !== null && typeof v === 'object' && '\\u0000' in v ? new Map(v['\\u0000']) : v));",
    ].join('\n');
  }
  throw new Error(`${file}: an export that is neither a Uint16Array nor a Map`);
}

/**
 * sanitize-html (descriptions, lambdas/domain/extraction/normalise.ts) `require`s htmlparser2: the
 * same version as the engine's since package.json's override, but its CommonJS build (with CommonJS
 * copies of domhandler, domutils, dom-serializer and entities) beside the ESM build the engine's
 * cheerio imports, ~55 KB twice. In the bundles its require resolves to the ESM build (same
 * version, same code). Proven the same output: test/infra/bundle-extract.test.ts extracts every
 * page of the product extraction benchmark bundled exactly as unbundled, and bundles.test.ts
 * sanitizes entity edge cases as unbundled.
 */
const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sanitizeHtmlParser = {
  name: 'sanitize-html-parser',
  setup(builder) {
    builder.onResolve({ filter: /^htmlparser2$/ }, async (args) => {
      if (args.namespace !== 'file' || !/[\\/]node_modules[\\/]sanitize-html[\\/]index\.js$/.test(args.importer))
        return undefined;
      const resolved = await builder.resolve('htmlparser2', {
        kind: 'import-statement',
        resolveDir: PROJECT_ROOT,
        namespace: 'sanitize-html-parser',
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { path: resolved.path };
    });
  },
};

/**
 * A module whose exports are the real module's names (read by importing it at build time), each
 * throwing a clear error when called: `why` says why the service never calls it. A symbol export
 * is the same registered symbol (`Symbol.for`); an object export throws on any property read;
 * `factories` names functions that are called when a value is built (zod's schema classes make
 * their toJSONSchema methods that way) and return a function that throws when called.
 */
async function throwingTwin(label, load, why, factories = []) {
  const real = await load();
  // The message once: `fail` throws it.
  const fail = 'fail();';
  const lines = [`function fail() { throw new Error(${JSON.stringify(`${label} is not in this bundle: ${why}`)}); }`];
  for (const [name, value] of Object.entries(real)) {
    if (name === 'default') throw new Error(`${label}: a default export cannot be stubbed by name`);
    if (typeof value === 'function')
      lines.push(
        factories.includes(name)
          ? `export function ${name}() { return function () { ${fail} }; }`
          : `export function ${name}() { ${fail} }`,
      );
    else if (typeof value === 'symbol') {
      const key = Symbol.keyFor(value);
      if (key === undefined) throw new Error(`${label}: the symbol ${name} is not a registered one`);
      lines.push(`export const ${name} = Symbol.for(${JSON.stringify(key)});`);
    } else if (value && typeof value === 'object')
      lines.push(`export const ${name} = new Proxy({}, { get() { ${fail} } });`);
    else lines.push(`export const ${name} = ${JSON.stringify(value)};`);
  }
  return lines.join('\n');
}

/**
 * Parts of zod no function calls, yet bundled because the service imports zod's namespace (`z`),
 * whose every export esbuild keeps:
 * - z.compile, zod's ahead-of-time compiler of a schema (31 KB): the service never calls it (its
 *   schemas parse through zod's ordinary runtime, which never imports the compiler).
 * - JSON Schema rendering (z.toJSONSchema, schema.toJSONSchema(), its processors: 23 KB): only the
 *   OpenAPI document renders JSON Schema at run time (lambdas/contracts/openapi.ts); functions
 *   that do not serve it (`jsonSchema: false`, lib/bundle.ts) get the throwing twins.
 */
const zodUnreached = (jsonSchema) => ({
  name: 'zod-unreached',
  setup(builder) {
    const stubbed = new Map([
      ['compile.js', { why: "z.compile is never called; schemas parse through zod's runtime parser" }],
      ...(jsonSchema
        ? []
        : [
            ['json-schema-processors.js', { why: JSON_SCHEMA_WHY }],
            [
              'to-json-schema.js',
              { why: JSON_SCHEMA_WHY, factories: ['createToJSONSchemaMethod', 'createStandardJSONSchemaMethod'] },
            ],
            ['json-schema-generator.js', { why: JSON_SCHEMA_WHY }],
          ]),
    ]);
    builder.onResolve({ filter: /^\.\.?\/(?:core\/)?[\w-]+\.js$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]zod[\\/]v4[\\/](?:classic|core)[\\/]/.test(args.importer)) return undefined;
      const stub = stubbed.get(path.basename(args.path));
      if (!stub) return undefined;
      return { path: path.resolve(args.resolveDir, args.path), namespace: 'zod-unreached', pluginData: stub };
    });
    builder.onLoad({ filter: /.*/, namespace: 'zod-unreached' }, async (args) => ({
      contents: await throwingTwin(
        `zod's ${path.basename(args.path)}`,
        () => import(pathToFileURL(args.path).href),
        args.pluginData.why,
        args.pluginData.factories,
      ),
      loader: 'js',
    }));
  },
});
const JSON_SCHEMA_WHY =
  'only the OpenAPI document renders JSON Schema at run time (lambdas/contracts/openapi.ts); list the function in JSON_SCHEMA_FUNCTIONS (lib/bundle.ts) if it serves it';

/**
 * Parts of the X-Ray SDK (Powertools' tracer, in every asset's tracing chunk) that a Lambda never
 * runs, each a CommonJS twin with the same members that throw a clear error when called or read
 * (~12 KB per asset):
 * - its centralized sampler (middleware/sampling/default_sampler with the rule and target
 *   pollers, their cache and the daemon's sampling API client): on Lambda the SDK's init
 *   (env/aws_lambda.js, run at load when LAMBDA_TASK_ROOT is set) replaces it by the local
 *   sampler before anything samples, and the function's segment is Lambda's own;
 * - the EC2, ECS and Elastic Beanstalk plugins: only AWSXRay.config([plugins]) reads them;
 * - the AWS SDK v2 patcher (captureAWS, captureAWSClient, with semver): the service's clients
 *   are SDK v3 (captureAWSv3Client).
 * test/infra/bundles.test.ts runs the bundled tracer as on Lambda and reads the subsegments it
 * sends to a loopback daemon, the same as unbundled.
 */
const XRAY_UNREACHED = [
  {
    specifier: './sampling/default_sampler',
    importer: /[\\/]aws-xray-sdk-core[\\/]dist[\\/]lib[\\/]middleware[\\/]mw_utils\.js$/,
    why: "the SDK's init on Lambda replaces the centralized sampler by the local one before anything samples",
  },
  ...['ec2_plugin', 'ecs_plugin', 'elastic_beanstalk_plugin'].map((plugin) => ({
    specifier: `./segments/plugins/${plugin}`,
    importer: /[\\/]aws-xray-sdk-core[\\/]dist[\\/]lib[\\/]aws-xray\.js$/,
    why: 'only AWSXRay.config([plugins]) reads the EC2/ECS/Elastic Beanstalk plugins, and the service never calls it',
  })),
  {
    specifier: './patchers/aws_p',
    importer: /[\\/]aws-xray-sdk-core[\\/]dist[\\/]lib[\\/]aws-xray\.js$/,
    why: "captureAWS patches the AWS SDK v2; the service traces SDK v3 clients (Powertools' captureAWSv3Client)",
  },
];
const xrayUnreached = {
  name: 'xray-unreached',
  setup(builder) {
    builder.onResolve({ filter: /^\.\/(?:sampling|segments[\\/]plugins|patchers)[\\/]/ }, (args) => {
      const unreached = XRAY_UNREACHED.find(
        (entry) => entry.specifier === args.path && entry.importer.test(args.importer),
      );
      if (!unreached) return undefined;
      return {
        path: createRequire(args.importer).resolve(args.path),
        namespace: 'xray-unreached',
        pluginData: unreached,
      };
    });
    builder.onLoad({ filter: /.*/, namespace: 'xray-unreached' }, (args) => {
      const { specifier, why } = args.pluginData;
      const real = createRequire(args.path)(args.path);
      if (!real || typeof real !== 'object') throw new Error(`${args.path}: exports no plain object to twin`);
      const lines = [
        `function fail() { throw new Error(${JSON.stringify(`aws-xray-sdk-core's ${specifier} is not in this bundle: ${why}`)}); }`,
        'module.exports = {',
      ];
      for (const [name, value] of Object.entries(real))
        lines.push(
          typeof value === 'function'
            ? `  ${JSON.stringify(name)}() { fail(); },`
            : `  get ${JSON.stringify(name)}() { return fail(); },`,
        );
      lines.push('};');
      return { contents: lines.join('\n'), loader: 'js' };
    });
  },
};

/**
 * Powertools' logger, metrics and tracer each carry their own copy of @aws-lambda-powertools/commons
 * (node_modules/@aws-lambda-powertools/<package>/node_modules/...), the same version: three copies
 * of the same modules in every asset (~3.5 KB). An import of commons from a Powertools package
 * resolves to the first installed copy (by path) whose version and every file of its lib/esm are
 * the same as the copy it resolves to (checked at build; a different copy keeps its own).
 */
const commonsCopies = new Map(); // package dir -> fingerprint
function commonsFingerprint(dir) {
  if (!commonsCopies.has(dir)) {
    const hash = createHash('sha256');
    hash.update(JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).version);
    const files = readdirSync(path.join(dir, 'lib', 'esm'), { recursive: true })
      .map(String)
      .filter((file) => file.endsWith('.js'))
      .sort();
    for (const file of files) hash.update(file).update(readFileSync(path.join(dir, 'lib', 'esm', file)));
    commonsCopies.set(dir, hash.digest('hex'));
  }
  return commonsCopies.get(dir);
}
/** Every installed copy of commons: the top-level one and those nested in Powertools packages, sorted. */
function commonsInstalled() {
  const scope = path.join(PROJECT_ROOT, 'node_modules', '@aws-lambda-powertools');
  return [
    path.join(scope, 'commons'),
    ...readdirSync(scope).map((name) => path.join(scope, name, 'node_modules', '@aws-lambda-powertools', 'commons')),
  ]
    .filter((dir) => existsSync(path.join(dir, 'package.json')))
    .sort();
}
const onePowertoolsCommons = {
  name: 'one-powertools-commons',
  setup(builder) {
    builder.onResolve({ filter: /^@aws-lambda-powertools\/commons(?:\/.*)?$/ }, async (args) => {
      if (args.namespace !== 'file' || !/[\\/]node_modules[\\/]@aws-lambda-powertools[\\/]/.test(args.importer))
        return undefined;
      const resolved = await resolveAs(builder, args.path, args, 'one-powertools-commons');
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      const match = resolved.path.match(/^(.*[\\/]node_modules[\\/]@aws-lambda-powertools[\\/]commons)[\\/](.+)$/);
      if (!match) return { path: resolved.path, sideEffects: resolved.sideEffects };
      // The first installed copy identical to this one (this one when none is before it).
      const canonical = commonsInstalled().find((dir) => commonsFingerprint(dir) === commonsFingerprint(match[1]));
      return { path: path.join(canonical ?? match[1], match[2]), sideEffects: resolved.sideEffects };
    });
  },
};

/**
 * The smithy protocols load their event-stream codec with `import()` when an operation streams
 * events (S3 SelectObjectContent, Bedrock's and Kinesis' subscriptions...): the service's
 * DynamoDB, SQS, Step Functions and S3 calls never do, so that import is a throwing twin (15 KB).
 * A client that imports the codec itself (S3's configuration does) keeps it.
 */
const eventStreamsUnreached = {
  name: 'event-streams-unreached',
  setup(builder) {
    builder.onResolve({ filter: /^@smithy\/core\/event-streams$/ }, async (args) => {
      if (args.kind !== 'dynamic-import' || args.namespace !== 'file') return undefined;
      if (!/[\\/]node_modules[\\/]@smithy[\\/]core[\\/]dist-es[\\/]submodules[\\/]protocols[\\/]/.test(args.importer))
        return undefined;
      return { path: args.path, namespace: 'event-streams-unreached', pluginData: { importer: args.importer } };
    });
    builder.onLoad({ filter: /.*/, namespace: 'event-streams-unreached' }, async (args) => ({
      // The CommonJS build has the same export names as the ESM one esbuild bundles.
      contents: await throwingTwin(
        args.path,
        async () => createRequire(args.pluginData.importer)(args.path),
        'no operation the service calls streams events (DynamoDB, SQS, Step Functions, S3 GetObject/PutObject)',
      ),
      loader: 'js',
    }));
  },
};

/**
 * The contracts (lambdas/contracts: every operation's request and response schemas and their
 * descriptions, ~40 KB) in a route's asset hold its own operations' alone: the route's pipeline
 * validates with CONTRACTS[its operationId] and nothing else reads them at run time (the OpenAPI
 * route, which renders them all, keeps every one). In operations.ts, CONTRACTS keeps the entries
 * of `operations`; in it and the modules it builds on (entities, common, webhooks) each top-level
 * value is computed by an immediately called arrow function marked pure, so the schemas no kept
 * entry uses are left out (a zod call at the top of a module is otherwise kept: esbuild cannot
 * know it has no side effects). The kept ones are built as before, in the same order, the same
 * values (test/infra/bundles.test.ts validates bad requests bundled and unbundled alike).
 */
const CONTRACT_MODULES = /[\\/]lambdas[\\/]contracts[\\/](?:operations|entities|common|webhooks)\.ts$/;
const operationContracts = (operations) => ({
  name: 'operation-contracts',
  setup(builder) {
    builder.onLoad({ filter: CONTRACT_MODULES }, async (args) => {
      const ts = (await import('typescript')).default;
      const source = readFileSync(args.path, 'utf8');
      const file = ts.createSourceFile(args.path, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
      const edits = []; // [position, end, text], applied from the last
      let tables = 0;
      for (const statement of file.statements) {
        if (!ts.isVariableStatement(statement)) continue;
        for (const declaration of statement.declarationList.declarations) {
          const init = declaration.initializer;
          if (!init || ts.isArrowFunction(init) || ts.isFunctionExpression(init)) continue;
          if (ts.isIdentifier(declaration.name) && declaration.name.text === 'CONTRACTS') {
            let table = init;
            while (ts.isSatisfiesExpression(table) || ts.isAsExpression(table) || ts.isParenthesizedExpression(table))
              table = table.expression;
            if (!ts.isObjectLiteralExpression(table))
              throw new Error(`${args.path}: CONTRACTS is not an object literal`);
            const entries = new Map(
              table.properties.map((property) => {
                if (!ts.isPropertyAssignment(property) || !ts.isIdentifier(property.name))
                  throw new Error(`${args.path}: a CONTRACTS entry that is not \`operationId: { ... }\``);
                return [property.name.text, property];
              }),
            );
            for (const operation of operations)
              if (!entries.has(operation)) throw new Error(`${args.path}: no contract for the operation ${operation}`);
            const kept = operations.map((operation) => entries.get(operation).getText(file));
            edits.push([table.getStart(file), table.end, `{\n${kept.join(',\n')}\n}`]);
            tables++;
            continue;
          }
          edits.push([init.end, init.end, '))()']);
          edits.push([init.getStart(file), init.getStart(file), '/* @__PURE__ */ (() => (']);
        }
      }
      if (/operations\.ts$/.test(args.path) && tables !== 1) throw new Error(`${args.path}: no CONTRACTS table`);
      let contents = source;
      for (const [start, end, text] of edits.sort((a, b) => b[0] - a[0] || b[1] - a[1]))
        contents = contents.slice(0, start) + text + contents.slice(end);
      return { contents, loader: 'ts' };
    });
  },
});

const options = JSON.parse(process.argv[2]);
const flags = JSON.parse(process.argv[3] ?? '{}');
const result = await build({
  ...options,
  metafile: true,
  logLevel: 'warning',
  plugins: [
    ...(flags.stub ? [capabilityStubs(flags.stub)] : []),
    ...(flags.operations ? [operationContracts(flags.operations)] : []),
    ...(flags.lambdaCredentials ? [lambdaCredentials] : []),
    ...(flags.zodEnglishOnly ? [zodEnglishOnly] : []),
    ...(flags.trimmed
      ? [
          packedFilesLoader,
          compressedData,
          packedDependencyJson,
          compactSuffixList,
          cheerioHtmlparser2ForExtraction,
          cheerioParse5ForCrawl,
          isUnsafeMarkupOnly,
          packageInfoOnly,
          domSerializerEscapeOnly,
          entitiesOneCopy,
          unusedDependencies,
          packedEntityTables,
          sanitizeHtmlParser,
          zodUnreached(flags.jsonSchema ?? true),
          eventStreamsUnreached,
          xrayUnreached,
          onePowertoolsCommons,
        ]
      : []),
    ...(flags.cheerioLoadOnly ? [cheerioLoadOnly] : []),
  ],
});

/**
 * The banner (lib/bundle.ts REQUIRE_BANNER: a `require` for CommonJS dependencies) is written at
 * the top of every output file, yet only the files whose code names `require` use it (esbuild's
 * __require helper lives in one chunk; ~95 bytes in each of the 30 others of an asset). A chunk
 * keeps it when the code after it has the word `require` anywhere (even in a string); the entry
 * (index.mjs) always keeps it.
 */
const banner = options.banner?.js;
if (flags.trimmed && banner) {
  for (const [file, output] of Object.entries(result.metafile.outputs)) {
    if (!file.endsWith('.mjs') || path.basename(file) === 'index.mjs') continue;
    const code = readFileSync(file, 'utf8');
    if (!code.startsWith(`${banner}\n`)) throw new Error(`${file} does not start with the banner`);
    const rest = code.slice(banner.length + 1);
    if (/\brequire\b/.test(rest)) continue;
    writeFileSync(file, rest);
    output.bytes = Buffer.byteLength(rest);
  }
}
process.stdout.write(JSON.stringify(result.metafile));
