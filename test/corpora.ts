// Where the shared real-world corpora live: ../shared/corpora beside the repository (the
// workplace layout), or PDS_CORPORA_DIR when a checkout lives elsewhere. Tests fail loudly
// rather than skip when it is missing.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function locateCorpora(): string {
  const candidates = [
    process.env.PDS_CORPORA_DIR,
    path.resolve(repoRoot, '../shared/corpora'),
    path.resolve(process.cwd(), '../shared/corpora'),
    '/work/shared/corpora',
  ].filter((dir): dir is string => Boolean(dir));
  const found = candidates.find((dir) => existsSync(path.join(dir, 'README.md')));
  if (!found) throw new Error(`Corpora not found; looked in ${candidates.join(', ')}. Set PDS_CORPORA_DIR.`);
  return found;
}

export const CORPORA = locateCorpora();
