// `npm run bench -- <name>` runs test/bench/<name>.ts, which prints its own figures.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import '../../lambdas/local/polyfills';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .map((f) => f.replace(/\.ts$/, ''));
const name = process.argv[2];
if (!name || !existsSync(join(here, `${name}.ts`))) {
  console.error(`usage: npm run bench -- <name>\navailable: ${available.join(', ')}`);
  process.exit(2);
}
const bench = (await import(join(here, `${name}.ts`))) as { default?: () => Promise<void> };
if (typeof bench.default === 'function') await bench.default();
