// Every saved HTML page of the shared corpora (plain or gzipped), with its URL where the corpus
// says one: for checks that must hold on all real pages, not only the scored ones.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { CORPORA } from './corpora';

export interface CorpusPage {
  name: string;
  url: string;
  html: string;
}

function urlsByFile(): Map<string, string> {
  const urls = new Map<string, string>();
  const read = (dir: string) => {
    const file = path.join(CORPORA, dir, 'expected.json');
    if (!existsSync(file)) return;
    const cases = (JSON.parse(readFileSync(file, 'utf8')) as { cases?: Array<Record<string, unknown>> }).cases ?? [];
    for (const c of cases) {
      const url = (c.url ?? c.input_url) as string | undefined;
      if (typeof c.file === 'string' && url) urls.set(path.join(dir, c.file), url);
    }
  };
  for (const dir of readdirSync(CORPORA)) read(dir);
  const truth = path.join(CORPORA, 'product-extraction-benchmark', 'ground-truth.json');
  for (const [id, t] of Object.entries(JSON.parse(readFileSync(truth, 'utf8')) as Record<string, { url: string }>))
    urls.set(path.join('product-extraction-benchmark', 'html', `${id}.html.gz`), t.url);
  return urls;
}

/** Every saved HTML page of the corpora (plain or gzipped), with its URL where one is known. */
export function corpusPages(): CorpusPage[] {
  const urls = urlsByFile();
  const pages: CorpusPage[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(CORPORA, rel)).sort()) {
      const relPath = path.join(rel, entry);
      const full = path.join(CORPORA, relPath);
      if (statSync(full).isDirectory()) walk(relPath);
      else if (/\.html?(\.gz)?$/.test(entry)) {
        const raw = readFileSync(full);
        pages.push({
          name: relPath,
          url: urls.get(relPath) ?? `https://shop.example/${relPath.replace(/\.gz$/, '')}`,
          html: (entry.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8'),
        });
      }
    }
  };
  walk('');
  return pages;
}
