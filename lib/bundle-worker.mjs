// Runs one esbuild build with plugins (the synchronous API that CDK's local bundling needs has
// none) and prints its metafile: `node lib/bundle-worker.mjs '<json options>' '{"zodEnglishOnly":true,"cheerioLoadOnly":true,"stub":{...}}'`. Called by
// lib/bundle.ts only.
import * as path from 'node:path';
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
      const resolved = await builder.resolve('cheerio', {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        namespace: 'cheerio-load-only',
      });
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
    ...(flags.cheerioLoadOnly ? [cheerioLoadOnly] : []),
  ],
});
process.stdout.write(JSON.stringify(result.metafile));
