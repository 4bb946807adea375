// Per-host politeness shared by every worker: whoever sends a request to a host (the page fetcher,
// a browser's page requests) takes a turn here first. The table-backed adapter
// (adapters/dynamodb/host-gate.ts) makes the turns and pauses hold across processes.

export interface HostPolicy {
  /** Minimum time between two request starts on the host (the configured delay or robots.txt Crawl-delay). */
  spacingMs: number;
  /** Requests in flight on the host at once. */
  concurrency: number;
}

export interface HostGate {
  /**
   * Waits for the host's next turn: a start at least `spacingMs` after the previous one and an
   * in-flight slot. Resolves at the start with the release, to call once the request ended (a
   * worker that never calls it frees its slot when the slot's lease expires). Rejects with
   * HostPaused when the host asked crawlers to wait longer than the gate waits.
   */
  acquire(host: string, policy: HostPolicy): Promise<() => void>;
  /** The host answered 429/503 with Retry-After: no worker starts a request on it before `untilMs`. */
  pause(host: string, untilMs: number): Promise<void>;
}

export class HostPaused extends Error {
  constructor(
    readonly host: string,
    readonly untilMs: number,
  ) {
    super(`${host} asked crawlers to wait until ${new Date(untilMs).toISOString()}`);
    this.name = 'HostPaused';
  }
}
