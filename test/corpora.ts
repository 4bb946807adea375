// Where the shared real-world corpora live: ../shared/corpora beside the repository (the
// workplace layout), or PDS_CORPORA_DIR when a checkout lives elsewhere. Tests fail loudly
// rather than skip when it is missing.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** `shared/corpora` beside the checkout or beside any folder above it (the workplace layout). */
function besideAncestors(from: string): string[] {
  const dirs: string[] = [];
  for (let dir = from; ; dir = path.dirname(dir)) {
    dirs.push(path.resolve(dir, '../shared/corpora'));
    if (path.dirname(dir) === dir) return dirs;
  }
}

function locateCorpora(): string {
  const candidates = [process.env.PDS_CORPORA_DIR, ...besideAncestors(repoRoot)].filter((dir): dir is string =>
    Boolean(dir),
  );
  const found = candidates.find((dir) => existsSync(path.join(dir, 'README.md')));
  if (!found) {
    throw new Error(
      `The shared corpora are missing: put them at ${path.resolve(repoRoot, '../shared/corpora')} (beside this checkout) ` +
        'or point PDS_CORPORA_DIR at the folder that holds their README.md.',
    );
  }
  return found;
}

export const CORPORA = locateCorpora();
