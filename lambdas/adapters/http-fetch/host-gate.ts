// The host gate of a fetcher built without a table (tests, tools): the same turns as the table's
// gate (adapters/dynamodb/host-gate.ts), kept in this process only. Every deployed and local
// service fetcher uses the table's (composition/fetcher.ts). Waiters are served in arrival order.
import { HostPaused, type HostGate, type HostPolicy } from '../../ports/host-gate';
import { sleep } from './retry';

interface HostState {
  active: number;
  nextStartAt: number;
  pausedUntil: number;
  waiters: Array<() => void>;
}

export function processHostGate(options: { maxPauseWaitMs?: number } = {}): HostGate {
  const maxPauseWaitMs = options.maxPauseWaitMs ?? 30_000;
  const hosts = new Map<string, HostState>();
  const stateOf = (host: string) => {
    let state = hosts.get(host);
    if (!state) hosts.set(host, (state = { active: 0, nextStartAt: 0, pausedUntil: 0, waiters: [] }));
    return state;
  };

  return {
    async acquire(host: string, policy: HostPolicy) {
      const state = stateOf(host);
      const concurrency = Math.max(1, Math.floor(policy.concurrency));
      if (state.active >= concurrency) await new Promise<void>((resolve) => state.waiters.push(resolve));
      else state.active++;
      // The slot is ours (handed over by a release or taken above); now the spacing and any pause.
      const now = Date.now();
      if (state.pausedUntil > now + maxPauseWaitMs) {
        release(host, state);
        throw new HostPaused(host, state.pausedUntil);
      }
      const startAt = Math.max(now, state.nextStartAt, state.pausedUntil);
      state.nextStartAt = startAt + Math.max(0, policy.spacingMs);
      if (startAt > now) await sleep(startAt - now);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        release(host, state);
      };
    },
    async pause(host, untilMs) {
      const state = stateOf(host);
      state.pausedUntil = Math.max(state.pausedUntil, untilMs);
    },
  };

  function release(host: string, state: HostState) {
    const next = state.waiters.shift();
    if (next)
      next(); // hand the slot over without decrementing
    else {
      state.active--;
      const now = Date.now();
      if (state.active === 0 && now >= state.nextStartAt && now >= state.pausedUntil) hosts.delete(host);
    }
  }
}
