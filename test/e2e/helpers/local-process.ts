// `npm start` as a separate process: bin/start.mjs (what `npm start` runs), which runs the service
// from its cached esbuild bundle with plain Node - what users run, and a fraction of the CPU of
// transpiling every module through tsx in each process. Several test files may start it at once
// on a clean clone: each builds the bundle into its own directory and renames it into place
// (bin/start.mjs), so a start never sees a half-written bundle.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

export interface LocalProcess {
  child: ChildProcess;
  url: string;
  /** The node process serving (for a shell wrapper, not the wrapper). */
  pid: number;
  /** Everything it printed so far (stdout and stderr). */
  output: () => string;
}

export interface LocalProcessOptions {
  /** Settings over this process's environment (PORT is 0: any free port); undefined unsets one. */
  env: Record<string, string | undefined>;
  /** Under a shell that never reaps it: a killed node stays a zombie until the wrapper ends. */
  wrapped?: boolean;
  /** Bound on the wait for the ready line. */
  maxMs?: number;
  /** A line it must also have printed before it counts as started (e.g. its start-up phases). */
  until?: RegExp;
}

const READY = /^ready (http:\/\/127\.0\.0\.1:\d+) in \d+ ms/m;
const started = new Set<ChildProcess>();

/** Starts `npm start`'s entry and resolves at its ready line; rejects when it exits first (the error carries its exit code and output) or stays silent for maxMs. */
export function startLocalProcess({
  env,
  wrapped = false,
  maxMs = 90_000,
  until,
}: LocalProcessOptions): Promise<LocalProcess> {
  const node = [process.execPath, 'bin/start.mjs'];
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env, PORT: '0' };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete merged[name];
  const options: SpawnOptions = {
    cwd: process.cwd(),
    env: merged,
    stdio: ['ignore', 'pipe', 'pipe'],
  };
  // The shell starts node in the background, prints its pid and becomes `sleep`: a parent that
  // never waits, so a killed node stays a zombie (state Z) until the test ends the wrapper.
  const child = wrapped
    ? spawn('sh', ['-c', `"$0" "$@" & echo "node-pid $!"; exec sleep 300`, ...node], options)
    : spawn(node[0]!, node.slice(1), options);
  started.add(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no ready line within ${maxMs} ms:\n${output}`));
    }, maxMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const ready = READY.exec(output);
      if (!ready || (until && !until.test(output))) return;
      clearTimeout(timer);
      const pid = wrapped ? Number(/node-pid (\d+)/.exec(output)?.[1]) : child.pid!;
      resolve({ child, url: ready[1]!, pid, output: () => output });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`exited with ${code} before ready:\n${output}`), { code, output }));
    });
  });
}

/** Resolves once the child has exited (at once when it already has). */
export function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** For afterAll: SIGKILL to every process started here that is still running. */
export function killLocalProcesses(): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  started.clear();
}
