// What `npm start` begins before the service's modules load (bin/local.ts): the data directory's
// claim and the dynalite thread. The thread's start (loading dynalite, opening LevelDB) then runs
// on the second core while the main thread loads and compiles the service, instead of after it.
// Light on purpose: node built-ins and two small local modules only.
import { startDynaliteThread, type DynaliteThread } from './dynalite-thread';
import { claimDataDir, dynamodbPath } from './runtime-file';

interface EarlyStart {
  dataDir: string;
  dynalite: Promise<DynaliteThread>;
}

let early: EarlyStart | undefined;

/** Claims `dataDir` (throws if another live process serves it) and starts its dynalite thread. */
export function startEarly(dataDir: string): void {
  claimDataDir(dataDir);
  const dynalite = startDynaliteThread(dynamodbPath(dataDir));
  // Rejections are reported by the engines' start, which awaits this promise.
  dynalite.catch(() => undefined);
  early = { dataDir, dynalite };
}

/** The early start of `dataDir`, once: startLocalService then skips the claim and uses its thread. */
export function takeEarlyStart(dataDir: string): EarlyStart | undefined {
  if (early?.dataDir !== dataDir) return undefined;
  const taken = early;
  early = undefined;
  return taken;
}
