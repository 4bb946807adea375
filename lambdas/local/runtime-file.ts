// `${dataDir}/runtime.json` says which process serves a data directory and where its engines
// listen (the keys CLI reads it). One process per data directory: dynalite crashes when two
// servers share a LevelDB path, so a start refuses while the file names a live process.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RuntimeInfo {
  pid: number;
  /** The owner's start time (Linux /proc), so a recycled pid is not taken for the owner. */
  pidStart?: string;
  url: string;
  dynamodbEndpoint: string;
  tableName: string;
  sqsEndpoint: string;
  stepFunctionsEndpoint: string;
  startedAt: string;
}

export const RUNTIME_FILE = 'runtime.json';

/** Data directories served by this process (in-process starts, e.g. tests, share one pid). */
const claimedHere = new Set<string>();

/** Where dynalite keeps the table (LevelDB) inside a data directory. */
export const dynamodbPath = (dataDir: string): string => join(dataDir, 'dynamodb');

export function readRuntimeFile(dataDir: string): RuntimeInfo | null {
  try {
    const info = JSON.parse(readFileSync(join(dataDir, RUNTIME_FILE), 'utf8')) as RuntimeInfo;
    return typeof info?.pid === 'number' ? info : null;
  } catch {
    return null;
  }
}

/**
 * Linux: a process's state letter and start time (clock ticks since boot) from /proc/<pid>/stat;
 * null where there is no /proc or the process is gone. The command name (field 2) may hold
 * spaces and parentheses, so fields are read after its last ')'.
 */
export function procStat(pid: number): { state: string; startTicks: string } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // After the name: state is field 3, starttime field 22 (1-based) => indices 0 and 19.
  return fields.length > 19 ? { state: fields[0]!, startTicks: fields[19]! } : null;
}

/** This process's start time as procStat reports it (recorded in runtime.json against pid reuse). */
export const ownStartTicks = (): string | undefined => procStat(process.pid)?.startTicks;

/**
 * Whether `pid` is a live process: it exists (signal 0), is not a zombie or dead entry waiting to
 * be reaped (kill -9 leaves one until its parent collects it), and, when `startTicks` is known,
 * started when the owner did (not another process that got the pid later).
 */
export function isProcessAlive(pid: number, startTicks?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists, owned by someone else; ESRCH: gone.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(pid);
  if (!stat) return !existsSync('/proc/self/stat'); // no /proc at all: signal 0 is all we know
  if (stat.state === 'Z' || stat.state === 'X' || stat.state === 'x') return false;
  return startTicks === undefined || stat.startTicks === startTicks;
}

/** The runtime serving dataDir right now, or null (no file, or the process is gone). */
export function liveRuntime(dataDir: string): RuntimeInfo | null {
  const info = readRuntimeFile(dataDir);
  return info && info.pid !== process.pid && isProcessAlive(info.pid, info.pidStart) ? info : null;
}

/**
 * Claims dataDir for this process before any engine opens it: creates a pid-only runtime.json
 * exclusively (two starts racing: one wins). A file left by kill -9 names a dead pid (or a
 * zombie not yet reaped, or a pid now reused by another process) and is taken over.
 */
export function claimDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  if (claimedHere.has(dataDir)) throw new Error(`${dataDir} is already served by this process`);
  const file = join(dataDir, RUNTIME_FILE);
  for (let attempt = 1; attempt <= 2; attempt++) {
    try {
      writeFileSync(file, JSON.stringify({ pid: process.pid, pidStart: ownStartTicks() }) + '\n', { flag: 'wx' });
      claimedHere.add(dataDir);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = liveRuntime(dataDir);
    if (holder) {
      throw new Error(
        `${dataDir} is in use by process ${holder.pid}${holder.url ? ` (${holder.url})` : ''}: stop it first, or set PDS_DATA_DIR to another directory`,
      );
    }
    rmSync(file, { force: true }); // stale: its process is gone
  }
  throw new Error(`Could not claim ${dataDir}: another process is starting on it`);
}

export function writeRuntimeFile(dataDir: string, info: RuntimeInfo): void {
  writeAtomically(join(dataDir, RUNTIME_FILE), info);
}

/** Removes runtime.json if it is this process's. */
export function releaseDataDir(dataDir: string): void {
  claimedHere.delete(dataDir);
  if (readRuntimeFile(dataDir)?.pid === process.pid) rmSync(join(dataDir, RUNTIME_FILE), { force: true });
}

function writeAtomically(file: string, value: unknown): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(value, null, 2) + '\n');
  renameSync(temp, file);
}
