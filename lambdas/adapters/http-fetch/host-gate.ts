// Per-host politeness: at most `concurrency` requests in flight per host and a minimum spacing
// between request starts. Waiters are served in arrival order.
import { sleep } from './retry';

interface HostState {
  active: number;
  nextStartAt: number;
  waiters: Array<() => void>;
}

export class HostGate {
  private readonly hosts = new Map<string, HostState>();

  constructor(private readonly concurrency: number) {}

  /** Waits for a slot on `host`, spacing starts by `delayMs`; returns the release function. */
  async acquire(host: string, delayMs: number): Promise<() => void> {
    let state = this.hosts.get(host);
    if (!state) {
      state = { active: 0, nextStartAt: 0, waiters: [] };
      this.hosts.set(host, state);
    }
    if (state.active >= this.concurrency) {
      await new Promise<void>((resolve) => state!.waiters.push(resolve));
    } else {
      state.active++;
    }
    // The slot is ours (handed over by release or taken above); now respect the spacing.
    const now = Date.now();
    const startAt = Math.max(now, state.nextStartAt);
    state.nextStartAt = startAt + Math.max(0, delayMs);
    if (startAt > now) await sleep(startAt - now);

    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = state!.waiters.shift();
      if (next)
        next(); // hand the slot over without decrementing
      else {
        state!.active--;
        if (state!.active === 0 && Date.now() >= state!.nextStartAt) this.hosts.delete(host);
      }
    };
  }
}
