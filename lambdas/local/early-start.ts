// What `npm start` begins before the service's modules load (bin/local.ts): the data directory's
// claim and the engines' threads. Their starts (loading dynalite and opening LevelDB; loading
// fastify and fauxqs, creating the queues) then run beside the main thread's loading of the
// service, instead of after it. Light on purpose: node built-ins and small local modules only.
import { QUEUES } from '../topology/queues';
import { startDynaliteThread, type DynaliteThread } from './dynalite-thread';
import { claimDataDir, dynamodbPath } from './runtime-file';
import { startSqsThread, type SqsThread } from './sqs-thread';

interface EarlyStart {
  dataDir: string;
  dynalite: Promise<DynaliteThread>;
  sqs: Promise<SqsThread>;
  /** Stops both threads (a start that fails before the engines own them). */
  stop(): Promise<void>;
}

let early: EarlyStart | undefined;

/** Claims `dataDir` (throws if another live process serves it) and starts the engines' threads. */
export function startEarly(dataDir: string): void {
  claimDataDir(dataDir);
  const dynalite = startDynaliteThread(dynamodbPath(dataDir));
  const sqs = startSqsThread(QUEUES);
  // Rejections are reported by the engines' start, which awaits these promises.
  dynalite.catch(() => undefined);
  sqs.catch(() => undefined);
  const stopQuietly = (thread: Promise<{ stop(): Promise<void> }>) =>
    thread.then((started) => started.stop()).catch(() => undefined);
  early = {
    dataDir,
    dynalite,
    sqs,
    stop: async () => void (await Promise.all([stopQuietly(dynalite), stopQuietly(sqs)])),
  };
}

/** The early start of `dataDir`, once: startLocalService then skips the claim and uses its thread. */
export function takeEarlyStart(dataDir: string): EarlyStart | undefined {
  if (early?.dataDir !== dataDir) return undefined;
  const taken = early;
  early = undefined;
  return taken;
}
