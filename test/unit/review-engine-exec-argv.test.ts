// Review of engineThreadExecArgv (lambdas/local/engine-thread.ts): the engine threads take the
// parent's CPU-profiling flags only. `node --cpu-prof --cpu-prof-dir <dir>` (the value as its own
// argument, as process.execArgv keeps it) must pass the directory too: a Worker given
// `--cpu-prof-dir` without it refuses to start (ERR_WORKER_INVALID_EXEC_ARGV), so the local
// engines would not start under a profiled run.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { engineThreadExecArgv } from '../../lambdas/local/engine-thread';

describe('engine threads’ execArgv', () => {
  it('keeps --cpu-prof and the profile directory in either form, and nothing else', () => {
    expect(engineThreadExecArgv(['--import', 'tsx', '--cpu-prof', '--cpu-prof-dir', 'profiles', '--inspect'])).toEqual([
      '--cpu-prof',
      '--cpu-prof-dir',
      'profiles',
    ]);
    expect(engineThreadExecArgv(['--cpu-prof', '--cpu-prof-dir=profiles', '--import', 'tsx'])).toEqual([
      '--cpu-prof',
      '--cpu-prof-dir=profiles',
    ]);
    expect(engineThreadExecArgv(['--import', 'tsx'])).toEqual([]);
    // A trailing flag without its value is left out, not passed on broken.
    expect(engineThreadExecArgv(['--cpu-prof', '--cpu-prof-dir'])).toEqual(['--cpu-prof']);
  });

  it('a worker started with them runs and writes its profile into the directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'review-prof-'));
    try {
      const worker = new Worker('0', {
        eval: true,
        execArgv: engineThreadExecArgv(['--import', 'tsx', '--cpu-prof', '--cpu-prof-dir', dir]),
      });
      const [code] = await once(worker, 'exit');
      expect(code).toBe(0);
      expect(readdirSync(dir).some((name) => name.endsWith('.cpuprofile'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
