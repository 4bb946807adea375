// Per-host politeness in the table, so it holds across every worker (Lambdas, local processes).
// One item per host (HOSTGATE#<host>):
//   nextStart    the earliest start nobody has booked yet. A worker books a window of k starts
//                [start, start + k * spacing), start = max(now, nextStart), and moves nextStart to
//                its end, in one conditional write. This is the GCRA of domain/ratelimit with a
//                burst of one, booking turns the caller waits for instead of refusing them;
//                windows are served in the order booked, whichever worker booked them.
//   pausedUntil  a 429/503 Retry-After from any worker: no window is booked or begun before it.
//   lease<i>, holder<i>  slot i (i < the host's concurrency) is held until lease<i> (epoch ms) by
//                holder<i>. A window runs on one slot, taken just before its first start
//                (conditional on the slot being free and the host not paused) and freed once its
//                last request ended (conditional on being its holder). A worker that dies leaves
//                its lease to expire (the window's end plus leaseMs), which frees the slot.
//
// A window's starts are this process's: its requests run one after another on the window's slot,
// each at its booked instant (a start whose instant passed, or whose slot is still busy, is
// skipped: nobody else may use it). A window books as many starts as the previous one served plus
// one, up to maxStartsPerWrite, so a worker that keeps a host busy books the most; when nobody
// booked after this process's window, its next starts are added to it on its slot in one write
// (conditional on its holder, nextStart still at its end, and no pause by then). Without spacing
// a window is a stretch of time (windowMs) on its slot instead, ended early when the slot is free
// and nobody waits; one that still has waiters at its end is renewed for another windowMs by one
// write on its slot (conditional on its holder, the host not paused, and nobody having booked
// since: a worker refused a slot books, so the holder frees it at its window's end and gives way
// for a few round trips). A refused worker tries again after a backoff doubling from 25 ms, at the
// latest when the first holder's window ends (its lease less leaseMs), not at every round trip.
//
// Per window, in SDK calls: the booking (one UpdateItem; on an idle host it takes the slot too),
// the take (one UpdateItem, unless the booking took it) and the free (one UpdateItem). So two for
// a lone fetch, and under load three per window of up to 8 starts: 3/8 = 0.375 per fetch, or one
// per 8 starts for a window grown in place (one worker keeping a host busy); without spacing, one
// renewal per windowMs a busy slot stays busy. A write that loses a race costs another
// write (and, on an engine that does not return the item with the failure, a GetItem). Nobody
// polls at the table's pace: a waiting worker holds a booked start and sleeps until it, or (no
// spacing, every slot held by others) backs off as above. `npm run bench -- host-gate-cost`
// prints the calls per fetch with and without spacing, for one worker and for four.
//
// Pauses are checked by every booking, take and renewal: a pause written by another worker while a window
// runs holds for that window's worker from its next window (its own 429/503 stops it at once).
// A busy host's windows follow one another, so the window running when a 429 is answered is
// most often the pausing worker's own.
import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { HostPaused, type HostGate, type HostPolicy } from '../../ports/host-gate';
import { deadline, hostGateItem, isConditionalFailure } from './keys';

export interface DynamoHostGateOptions {
  /** How long a slot stays taken when its holder never frees it (a crashed worker). Default 60 s. */
  leaseMs?: number;
  /** A pause that ends later than this from now is refused at once (HostPaused), not waited for. Default 30 s. */
  maxPauseWaitMs?: number;
  /** Starts one write may book for this process's requests (a window). Default 8. */
  maxStartsPerWrite?: number;
  /**
   * A window's length on a host without spacing (its requests run back to back), renewed while it
   * has waiters: a pause written by another worker holds for this one from its next window, at
   * most this long after. Default 2 s.
   */
  windowMs?: number;
  clock?: () => number;
}

/** What this process last read or wrote of a host's item. */
export interface GateSnapshot {
  nextStart: number;
  pausedUntil: number;
  /** Per slot: lease end (absent or 0: free). */
  leases: number[];
}

const EMPTY: GateSnapshot = { nextStart: 0, pausedUntil: 0, leases: [] };
/** A host item untouched this long is deleted by the table's TTL. */
const ITEM_TTL_S = 24 * 3600;
/** Hosts whose snapshot this process keeps (idle ones are forgotten first). */
const MAX_HOSTS = 10_000;

/**
 * The slot a start at `start` tries: consecutive starts take turns over the slots (the slot used
 * `concurrency` starts ago has most likely ended), else any slot free in the snapshot.
 */
export function slotFor(known: GateSnapshot, policy: HostPolicy, start: number, now: number): number {
  const turn = Math.floor(policy.spacingMs > 0 ? start / policy.spacingMs : start);
  const preferred = turn % policy.concurrency;
  const free = (slot: number) => (known.leases[slot] ?? 0) <= now;
  if (free(preferred)) return preferred;
  for (let slot = 0; slot < policy.concurrency; slot++) if (free(slot)) return slot;
  return preferred;
}

function snapshotOf(item: Record<string, unknown> | undefined): GateSnapshot {
  if (!item) return { ...EMPTY, leases: [] };
  const leases: number[] = [];
  for (const [name, value] of Object.entries(item)) {
    const slot = /^lease(\d+)$/.exec(name);
    if (slot) leases[Number(slot[1])] = Number(value);
  }
  return { nextStart: Number(item.nextStart ?? 0), pausedUntil: Number(item.pausedUntil ?? 0), leases };
}

interface Waiter {
  policy: HostPolicy;
  resolve(release: () => void): void;
  reject(error: unknown): void;
}

/** Starts booked in one write, run by this process one after another on one slot. */
interface Window {
  policy: HostPolicy;
  first: number;
  count: number;
  /** No start at or after this instant. */
  end: number;
  /** Starts reached so far (served, skipped or given up). */
  reached: number;
  /** A request of this window is in flight. */
  busy: boolean;
  /** The slot it holds, once taken. */
  slot?: number;
  /** A request outlasted the spacing (a start found its slot busy): its next starts go to another window, on another slot. */
  outlasted?: boolean;
  served: number;
}

interface HostState {
  known: GateSnapshot;
  waiters: Waiter[];
  windows: Set<Window>;
  driving: boolean;
  /** Ends the driver's wait early (a window ended). */
  wake: (() => void) | null;
  /** Wakes the windows waiting for a waiter or a release. */
  poke: Array<() => void>;
  /** Requests the last window served: the next books one more. */
  lastServed: number;
  /** Takes refused in a row because other workers held every slot (no spacing): the backoff's exponent. */
  refused: number;
  /** No window of this process begins before this: it gave its slot up to a worker that booked. */
  yieldUntil: number;
}

type Write = Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName' | 'Key'>;

export function dynamoHostGate(
  documents: DynamoDBDocumentClient,
  tableName: string,
  options: DynamoHostGateOptions = {},
): HostGate {
  const leaseMs = options.leaseMs ?? 60_000;
  const maxPauseWaitMs = options.maxPauseWaitMs ?? 30_000;
  const maxStarts = Math.max(1, options.maxStartsPerWrite ?? 8);
  const windowMs = Math.max(1, options.windowMs ?? 2000);
  const clock = options.clock ?? Date.now;
  const me = randomUUID();
  const hosts = new Map<string, HostState>();
  // A window is booked a write's round trip ahead, and its slot taken a write's round trip before
  // its first start, so the request leaves at the booked instant.
  const writes = roundTrips();

  const stateOf = (host: string): HostState => {
    let state = hosts.get(host);
    if (state) return state;
    if (hosts.size >= MAX_HOSTS) {
      for (const [name, other] of hosts)
        if (!other.driving && !other.windows.size) {
          hosts.delete(name);
          break;
        }
    }
    state = {
      known: EMPTY,
      waiters: [],
      windows: new Set(),
      driving: false,
      wake: null,
      poke: [],
      lastServed: 0,
      refused: 0,
      yieldUntil: 0,
    };
    hosts.set(host, state);
    return state;
  };

  /** One conditional write; true when it held. A lost race refreshes the snapshot. */
  const write = async (host: string, state: HostState, input: Write): Promise<boolean> => {
    const begun = clock();
    try {
      const out = await documents.send(
        new UpdateCommand({
          TableName: tableName,
          Key: hostGateItem(host),
          ...input,
          ReturnValues: 'ALL_NEW',
          // DynamoDB answers a lost race with the item, sparing the read (the local engine does not).
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
        deadline(),
      );
      writes.add(clock() - begun);
      state.known = snapshotOf(out.Attributes);
      return true;
    } catch (error) {
      if (!isConditionalFailure(error)) throw error;
      writes.add(clock() - begun);
      const item = (error as { Item?: Record<string, unknown> }).Item;
      state.known = item ? snapshotOf(unmarshallFlat(item)) : await read(host);
      return false;
    }
  };

  const read = async (host: string): Promise<GateSnapshot> => {
    const out = await documents.send(
      new GetCommand({ TableName: tableName, Key: hostGateItem(host), ConsistentRead: true }),
      deadline(),
    );
    return snapshotOf(out.Item);
  };

  const ttl = (ms: number) => Math.ceil(ms / 1000) + ITEM_TTL_S;

  /**
   * Books `count` starts, at `earliest` or later; resolves with the first one's instant, or null
   * after a lost race (the snapshot re-read). A busy host (nextStart past `earliest`): nextStart
   * moves on by the starts' spacings whatever its value, so busy bookers never race each other;
   * theirs are the starts just before its new value. An idle or paused one: nextStart restarts
   * from `earliest`, and the write may take the window's slot too, until `leaseUntil`.
   */
  const book = async (
    host: string,
    state: HostState,
    earliest: number,
    delta: number,
    slot?: { slot: number; leaseUntil: number },
  ) => {
    const names: Record<string, string> = { '#next': 'nextStart', '#pause': 'pausedUntil', '#ttl': 'expiresAt' };
    if (state.known.nextStart > earliest) {
      const advanced = await write(host, state, {
        UpdateExpression: 'SET #next = #next + :delta, #ttl = :ttl',
        ConditionExpression: '#next > :earliest AND (attribute_not_exists(#pause) OR #pause <= #next)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: {
          ':delta': delta,
          ':earliest': earliest,
          ':ttl': ttl(state.known.nextStart + delta),
        },
      });
      return advanced ? state.known.nextStart - delta : null;
    }
    const values: Record<string, unknown> = { ':next': earliest + delta, ':start': earliest, ':ttl': ttl(earliest) };
    const sets = ['#next = :next', '#ttl = :ttl'];
    const conditions = [
      '(attribute_not_exists(#next) OR #next <= :start)',
      '(attribute_not_exists(#pause) OR #pause <= :start)',
    ];
    if (slot) {
      Object.assign(names, { '#lease': `lease${slot.slot}`, '#holder': `holder${slot.slot}` });
      Object.assign(values, { ':lease': slot.leaseUntil, ':me': me, ':now': clock() });
      sets.push('#lease = :lease', '#holder = :me');
      conditions.push('(attribute_not_exists(#lease) OR #lease <= :now)');
    }
    const restarted = await write(host, state, {
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
    return restarted ? earliest : null;
  };

  /** Takes slot `slot` until `leaseUntil` for a start at `start`: free now, and the host not paused past the start. */
  const take = (host: string, state: HostState, slot: number, start: number, leaseUntil: number) =>
    write(host, state, {
      UpdateExpression: 'SET #lease = :lease, #holder = :me, #ttl = :ttl',
      ConditionExpression:
        '(attribute_not_exists(#lease) OR #lease <= :now) AND (attribute_not_exists(#pause) OR #pause <= :start)',
      ExpressionAttributeNames: {
        '#lease': `lease${slot}`,
        '#holder': `holder${slot}`,
        '#pause': 'pausedUntil',
        '#ttl': 'expiresAt',
      },
      ExpressionAttributeValues: {
        ':lease': leaseUntil,
        ':me': me,
        ':now': clock(),
        ':start': start,
        ':ttl': ttl(leaseUntil),
      },
    });

  /**
   * With spacing: books the starts that follow a window on its slot in one write (its next window,
   * without a free, a booking and a take), when nobody booked after it and the host is not paused
   * by then. False when it cannot (another worker booked, no slot yet): drive books as usual.
   */
  const extend = async (host: string, state: HostState, win: Window, count: number) => {
    const { slot, policy } = win;
    const end = win.end + count * policy.spacingMs;
    const extended = await write(host, state, {
      UpdateExpression: 'SET #next = #next + :delta, #lease = :lease, #ttl = :ttl',
      ConditionExpression: '#holder = :me AND #next = :end AND (attribute_not_exists(#pause) OR #pause <= :end)',
      ExpressionAttributeNames: {
        '#next': 'nextStart',
        '#lease': `lease${slot}`,
        '#holder': `holder${slot}`,
        '#pause': 'pausedUntil',
        '#ttl': 'expiresAt',
      },
      ExpressionAttributeValues: {
        ':delta': count * policy.spacingMs,
        ':lease': end + leaseMs,
        ':me': me,
        ':end': win.end,
        ':ttl': ttl(end + leaseMs),
      },
    });
    if (extended) {
      win.count += count;
      win.end = end;
    }
    return extended;
  };

  /**
   * This process's window that the next booking would follow on a spaced host, holding a slot
   * whose requests fit the spacing, and whose last start is far enough ahead that the window
   * still runs when an extension lands.
   */
  const extendable = (state: HostState, policy: HostPolicy): Window | undefined => {
    if (policy.spacingMs <= 0 || state.known.pausedUntil > state.known.nextStart) return undefined;
    for (const win of state.windows)
      if (
        win.end === state.known.nextStart &&
        win.slot !== undefined &&
        !win.outlasted &&
        win.policy.spacingMs === policy.spacingMs &&
        win.first + (win.count - 1) * win.policy.spacingMs > clock() + 2 * writes.ms
      )
        return win;
    return undefined;
  };

  /**
   * Keeps this process's slot until `leaseUntil` for another window: still its holder, the host
   * not paused now, and nobody booked since this process last saw the item (a worker refused a
   * slot books again before it takes: the slot then goes free at this window's end).
   */
  const renew = (host: string, state: HostState, slot: number, leaseUntil: number) =>
    write(host, state, {
      UpdateExpression: 'SET #lease = :lease, #ttl = :ttl',
      ConditionExpression:
        '#holder = :me AND (attribute_not_exists(#pause) OR #pause <= :now) AND (attribute_not_exists(#next) OR #next <= :seen)',
      ExpressionAttributeNames: {
        '#lease': `lease${slot}`,
        '#holder': `holder${slot}`,
        '#pause': 'pausedUntil',
        '#next': 'nextStart',
        '#ttl': 'expiresAt',
      },
      ExpressionAttributeValues: {
        ':lease': leaseUntil,
        ':me': me,
        ':now': clock(),
        ':seen': state.known.nextStart,
        ':ttl': ttl(leaseUntil),
      },
    });

  /**
   * When a worker refused a slot (no spacing: every slot held by others) books and tries again:
   * after a backoff that doubles with each refusal in a row (a slot freed early is found soon, a
   * holder that died keeps its slot until its lease ends), at the latest when the first holder's
   * window ends (its lease less leaseMs). Without a slot held (a pause refused it) at once: the
   * booking waits for the pause.
   */
  const retryAt = (state: HostState, now: number) => {
    const held = state.known.leases.filter((lease) => lease > now);
    if (!held.length) return now;
    const backoff = Math.min(windowMs, 25 * 2 ** state.refused++);
    const holderEnds = Math.min(...held) - leaseMs + writes.ms;
    return now + Math.min(backoff, Math.max(writes.ms, holderEnds - now));
  };

  /** Frees a slot once its window's last request ended. A failure only leaves the lease to expire. */
  const free = (host: string, state: HostState, slot: number) =>
    documents
      .send(
        new UpdateCommand({
          TableName: tableName,
          Key: hostGateItem(host),
          UpdateExpression: 'REMOVE #lease, #holder',
          ConditionExpression: '#holder = :me',
          ExpressionAttributeNames: { '#lease': `lease${slot}`, '#holder': `holder${slot}` },
          ExpressionAttributeValues: { ':me': me },
        }),
        deadline(),
      )
      .then(() => {
        state.known.leases[slot] = 0;
      })
      .catch(() => undefined);

  const pokeAll = (state: HostState) => {
    for (const poke of state.poke.splice(0)) poke();
  };

  /** Until something changes for the windows (a waiter came, a request ended) or `until`. */
  const changed = (state: HostState, until: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, until - clock()));
      state.poke.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });

  /** Hands the window's slot to the first waiter its spacing suits; false when none waits. */
  const serveOne = (state: HostState, win: Window): boolean => {
    const index = state.waiters.findIndex((w) => w.policy.spacingMs <= win.policy.spacingMs);
    if (index < 0) return false;
    const [waiter] = state.waiters.splice(index, 1);
    win.busy = true;
    win.served++;
    let released = false;
    waiter!.resolve(() => {
      if (released) return;
      released = true;
      win.busy = false;
      pokeAll(state);
    });
    return true;
  };

  /**
   * Runs a booked window: takes a slot just before a start (unless the booking took one; tried
   * again before each later start when every slot was held), then serves this process's waiters
   * at the window's starts, one request at a time, and frees the slot after the last one.
   */
  async function runWindow(host: string, state: HostState, win: Window, booked?: number) {
    const { policy } = win;
    const spacing = policy.spacingMs;
    const tolerance = Math.max(15, spacing / 10);
    let slot = booked;
    win.slot = booked;
    try {
      for (; win.reached < win.count; win.reached++) {
        // A start skipped leaves waiters without one: another window (another slot) may take them.
        if (!state.driving && state.waiters.length > open(state)) void drive(host, state);
        const at = spacing > 0 ? win.first + win.reached * spacing : Math.max(win.first, clock());
        if (at >= win.end || state.known.pausedUntil > at) break;
        if (slot === undefined) {
          await sleepUntil(at - writes.ms);
          if (clock() > at + tolerance || state.known.pausedUntil > at) continue;
          const candidate = slotFor(state.known, policy, at, clock());
          if (await take(host, state, candidate, at, win.end + leaseMs)) {
            slot = win.slot = candidate;
            state.refused = 0;
          } else {
            if (spacing === 0) await sleepUntil(retryAt(state, clock()));
            continue;
          }
        }
        await sleepUntil(at);
        if (spacing > 0) {
          // A start well after its instant would crowd the next window's; a busy slot waits for the next start.
          if (win.busy) win.outlasted = true;
          if (clock() > at + tolerance || win.busy || state.known.pausedUntil > at) continue;
          serveOne(state, win);
        } else {
          // No spacing: the slot serves waiters back to back until the window's end, or until
          // it is free with nobody waiting (an idle slot is freed at once). Waiters still there
          // at the end renew it for another window in one write (the holder's, the host not
          // paused) instead of a free, a booking and a take.
          while (state.known.pausedUntil <= clock()) {
            if (clock() >= win.end) {
              if (!state.waiters.length) break;
              if (!(await renew(host, state, slot!, clock() + windowMs + leaseMs))) {
                // Another worker booked: it takes the slot when this one frees it, before this process's next window.
                state.yieldUntil = clock() + 4 * writes.ms;
                break;
              }
              win.end = clock() + windowMs;
            }
            if (!win.busy && !serveOne(state, win)) break;
            if (win.busy) await changed(state, win.end);
          }
        }
      }
      // The slot stays held until the window's last request ended (or its lease would have).
      while (win.busy && clock() < win.end + leaseMs) await changed(state, win.end + leaseMs);
    } catch (error) {
      for (const waiter of state.waiters.splice(0)) waiter.reject(error);
    } finally {
      state.windows.delete(win);
      state.lastServed = win.served;
      if (slot !== undefined) void free(host, state, slot);
      if (state.driving) state.wake?.();
      else if (state.waiters.length) void drive(host, state);
    }
  }

  /** Starts the live windows will still offer this process's waiters. */
  const open = (state: HostState) => {
    let starts = 0;
    for (const win of state.windows) starts += win.policy.spacingMs > 0 ? win.count - win.reached : win.busy ? 0 : 1;
    return starts;
  };

  async function drive(host: string, state: HostState): Promise<void> {
    state.driving = true;
    try {
      while (state.waiters.length > open(state)) {
        const now = clock();
        const { policy } = state.waiters[0]!;
        const { pausedUntil, nextStart } = state.known;
        if (pausedUntil > now + maxPauseWaitMs) {
          for (const waiter of state.waiters.splice(0)) waiter.reject(new HostPaused(host, pausedUntil));
          break;
        }
        if (state.windows.size >= policy.concurrency) {
          await rest(state);
          continue;
        }
        if (state.yieldUntil > now) {
          await sleepUntil(state.yieldUntil);
          continue;
        }
        const spacing = policy.spacingMs;
        const count =
          spacing > 0 ? Math.min(maxStarts, Math.max(state.waiters.length - open(state), state.lastServed + 1)) : 1;
        const span = spacing > 0 ? count * spacing : windowMs;
        const earliest = Math.max(now + writes.ms, pausedUntil);
        // An idle host with a free slot: the booking takes the window's slot too.
        const candidate = slotFor(state.known, policy, earliest, now);
        const idle = nextStart <= earliest && earliest === now + writes.ms;
        const slot = idle && (state.known.leases[candidate] ?? 0) <= now ? candidate : undefined;
        const leaseUntil = earliest + span + leaseMs;
        const last = extendable(state, policy);
        // It grows by as many starts as it served plus one, like a new window after it would.
        const more = last && Math.min(maxStarts, Math.max(state.waiters.length - open(state), last.served + 1));
        if (last && more && (await extend(host, state, last, more))) continue;
        const first = await book(
          host,
          state,
          earliest,
          spacing * count,
          slot === undefined ? undefined : { slot, leaseUntil },
        );
        if (first === null) continue;
        const win: Window = { policy, first, count, end: first + span, reached: 0, busy: false, served: 0 };
        state.windows.add(win);
        void runWindow(host, state, win, slot);
      }
    } catch (error) {
      for (const waiter of state.waiters.splice(0)) waiter.reject(error);
    } finally {
      state.driving = false;
    }
  }

  /** Waits until a window of this process ended. */
  const rest = (state: HostState) =>
    new Promise<void>((resolve) => {
      state.wake = () => {
        state.wake = null;
        resolve();
      };
    });

  /** Timers may fire a millisecond early: never hand out a start before its instant. */
  async function sleepUntil(at: number): Promise<void> {
    for (let ms = at - clock(); ms > 0; ms = at - clock()) await new Promise((resolve) => setTimeout(resolve, ms));
  }

  return {
    acquire(host, policy) {
      const safe: HostPolicy = {
        spacingMs: Math.max(0, policy.spacingMs),
        concurrency: Math.max(1, Math.floor(policy.concurrency)),
      };
      return new Promise((resolve, reject) => {
        const state = stateOf(host);
        state.waiters.push({ policy: safe, resolve, reject });
        pokeAll(state);
        if (!state.driving) void drive(host, state);
      });
    },
    async pause(host, untilMs) {
      const state = stateOf(host);
      state.known = { ...state.known, pausedUntil: Math.max(untilMs, state.known.pausedUntil) };
      pokeAll(state);
      try {
        await documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: hostGateItem(host),
            UpdateExpression: 'SET #pause = :until, #ttl = :ttl',
            ConditionExpression: 'attribute_not_exists(#pause) OR #pause < :until',
            ExpressionAttributeNames: { '#pause': 'pausedUntil', '#ttl': 'expiresAt' },
            ExpressionAttributeValues: { ':until': untilMs, ':ttl': ttl(untilMs) },
          }),
          deadline(),
        );
      } catch (error) {
        if (!isConditionalFailure(error)) throw error; // a longer pause is already there
      }
    },
  };
}

/**
 * A round trip to allow for (ms): its smoothed mean plus twice its mean deviation, as TCP times
 * its retransmissions, so a booked start is rarely missed because the table answered slowly.
 */
function roundTrips() {
  let mean = 10;
  let deviation = 5;
  return {
    get ms() {
      return Math.ceil(Math.min(1000, mean + 2 * deviation));
    },
    add(sample: number) {
      deviation = 0.75 * deviation + 0.25 * Math.abs(mean - sample);
      mean = 0.875 * mean + 0.125 * Math.max(0, sample);
    },
  };
}

/** The item of a ConditionalCheckFailedException comes in the wire format ({ N: '1' }): flat values suffice here. */
function unmarshallFlat(item: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(item).map(([name, value]) => {
      const typed = value as { N?: string; S?: string } | undefined;
      return [name, typed?.N !== undefined ? Number(typed.N) : (typed?.S ?? value)];
    }),
  );
}
