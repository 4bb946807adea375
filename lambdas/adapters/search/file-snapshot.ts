// Index snapshots on the local disk (under PDS_DATA_DIR): written to a temporary file and
// renamed over the old one, so a crash mid-write leaves the previous snapshot whole.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { SnapshotStore } from '../../ports/search-index';

export function fileSnapshotStore(path: string): SnapshotStore {
  return {
    async load() {
      try {
        return await readFile(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    async save(data) {
      await mkdir(dirname(path), { recursive: true });
      // A name of its own per write: two saves in flight never rename each other's file.
      const temporary = `${path}.${process.pid}.${randomUUID()}.tmp`;
      await writeFile(temporary, data);
      await rename(temporary, path);
    },
  };
}
