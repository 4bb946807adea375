// Regenerates lambdas/domain/enrichment/data/ from ../shared/corpora/taxonomy (the Lambda bundle
// cannot read ../shared at run time): `npx tsx test/tools/build-taxonomy.ts`.
// taxonomy.json keeps [id, leaf name] per category; a path is its parent's path + " > " + leaf,
// and the parent id is the id without its last "-N", so the full paths need not be stored.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CORPORA } from '../corpora';

const source = path.join(CORPORA, 'taxonomy');
const target = path.resolve(process.cwd(), 'lambdas/domain/enrichment/data');
mkdirSync(target, { recursive: true });

const categories: [string, string][] = [];
for (const line of readFileSync(path.join(source, 'shopify-categories.tsv'), 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const [id, fullPath] = line.split('\t');
  const parts = fullPath.split(' > ');
  categories.push([id, parts[parts.length - 1]]);
}
writeFileSync(
  path.join(target, 'taxonomy.json'),
  `${JSON.stringify({
    source:
      'Shopify Standard Product Taxonomy, dist/en/categories.txt at dc00ac3 (MIT, see LICENSE.shopify-product-taxonomy.txt)',
    version: '2025-01-unstable',
    categories,
  })}\n`,
);
const licence = path.join(target, 'LICENSE.shopify-product-taxonomy.txt');
if (existsSync(licence)) chmodSync(licence, 0o644);
copyFileSync(path.join(source, 'LICENSE.shopify-product-taxonomy.txt'), licence);
chmodSync(licence, 0o644);

// Colour names -> ISCC-NBS level-1 family. Only close matches (deltaE <= 30) are kept: the
// nearest-centroid mapping is unreliable beyond that, and the curated list in colour.ts wins anyway.
const colors: Record<string, string> = {};
for (const line of readFileSync(path.join(source, 'color-names-to-iscc-level1.tsv'), 'utf8').split('\n')) {
  if (!line.trim() || line.startsWith('#') || line.startsWith('source\t')) continue;
  const [, name, , , , deltaE, , level1] = line.split('\t');
  if (Number(deltaE) > 30) continue;
  const key = name.toLowerCase().trim();
  if (!(key in colors)) colors[key] = level1;
}
writeFileSync(
  path.join(target, 'colors.json'),
  `${JSON.stringify({
    source:
      'color-names-to-iscc-level1.tsv: xkcd survey names (CC0) and CSS names (MIT) via color-name-lists@3.33.2, nearest ISCC-NBS centroid, deltaE <= 30',
    colors,
  })}\n`,
);
console.log(`taxonomy.json: ${categories.length} categories; colors.json: ${Object.keys(colors).length} names`);
