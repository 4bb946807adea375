// Runs one esbuild build with plugins (the synchronous API that CDK's local bundling needs has
// none) and prints its metafile: `node lib/bundle-worker.mjs '<json options>' [en|all-locales]`. Called by
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

const options = JSON.parse(process.argv[2]);
const result = await build({
  ...options,
  metafile: true,
  logLevel: 'warning',
  plugins: process.argv[3] === 'all-locales' ? [] : [zodEnglishOnly],
});
process.stdout.write(JSON.stringify(result.metafile));
