// Task tokens of `.waitForTaskToken` states waiting for SendTaskSuccess/Failure/Heartbeat.
import { randomBytes } from 'node:crypto';
import { SfnServiceError, statesError } from './errors';

interface PendingTask {
  executionArn: string;
  stateName: string;
  resolve(output: unknown): void;
  reject(error: Error): void;
  heartbeatSeconds?: number;
  heartbeatTimer?: NodeJS.Timeout;
  timeoutTimer?: NodeJS.Timeout;
}

type EndReason = 'completed' | 'timed-out' | 'aborted';

const TOKEN_PATTERN = /^pds1\.[A-Za-z0-9_-]{43}$/;
/** Ended tokens remembered so late callbacks get AWS's specific error, not InvalidToken. */
const ENDED_TOKENS_KEPT = 10_000;

export class TaskTokens {
  private readonly pending = new Map<string, PendingTask>();
  private readonly ended = new Map<string, EndReason>();

  /**
   * Registers a task waiting for its callback. The interpreter enforces TimeoutSeconds itself
   * (it raises the States.Timeout that Retry/Catch expect); the timer here is set first, with
   * the same delay, so the token is already gone when a late callback arrives.
   */
  mint(executionArn: string, stateName: string, limits: { timeoutSeconds?: number; heartbeatSeconds?: number }) {
    const token = `pds1.${randomBytes(32).toString('base64url')}`;
    let resolve!: (output: unknown) => void;
    let reject!: (error: Error) => void;
    const promise = new Promise<unknown>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const task: PendingTask = { executionArn, stateName, resolve, reject, heartbeatSeconds: limits.heartbeatSeconds };
    if (limits.timeoutSeconds !== undefined) {
      task.timeoutTimer = setTimeout(() => this.end(token, 'timed-out'), limits.timeoutSeconds * 1000);
    }
    this.pending.set(token, task);
    this.armHeartbeat(token, task);
    return { token, promise };
  }

  succeed(token: string, output: unknown): void {
    this.take(token).resolve(output);
  }

  fail(token: string, error: string | undefined, cause: string | undefined): void {
    // AWS leaves Error empty when the worker sends none; States.ALL still matches it.
    this.take(token).reject(statesError(error ?? '', cause ?? ''));
  }

  heartbeat(token: string): void {
    const task = this.find(token);
    this.armHeartbeat(token, task);
  }

  /** The execution ended or was stopped: its callbacks now get TaskDoesNotExist. */
  dropExecution(executionArn: string): void {
    for (const [token, task] of this.pending) {
      if (task.executionArn !== executionArn) continue;
      this.end(token, 'aborted');
      task.reject(statesError('States.Runtime', 'Execution stopped'));
    }
  }

  /** The message carrying this token was never sent. */
  discard(token: string): void {
    const task = this.pending.get(token);
    this.end(token, 'aborted');
    task?.reject(statesError('States.Runtime', 'Task message not sent'));
  }

  get size(): number {
    return this.pending.size;
  }

  private armHeartbeat(token: string, task: PendingTask): void {
    if (task.heartbeatSeconds === undefined) return;
    clearTimeout(task.heartbeatTimer);
    task.heartbeatTimer = setTimeout(() => {
      this.end(token, 'timed-out');
      task.reject(statesError('States.Timeout', `No heartbeat for ${task.heartbeatSeconds} s (HeartbeatSeconds)`));
    }, task.heartbeatSeconds * 1000);
  }

  private find(token: string): PendingTask {
    if (typeof token !== 'string' || !TOKEN_PATTERN.test(token))
      throw new SfnServiceError('InvalidToken', 'Invalid Token');
    const task = this.pending.get(token);
    if (task) return task;
    if (this.ended.get(token) === 'timed-out') throw new SfnServiceError('TaskTimedOut', 'Task Timed Out');
    throw new SfnServiceError('TaskDoesNotExist', 'Task does not exist anymore');
  }

  private take(token: string): PendingTask {
    const task = this.find(token);
    this.end(token, 'completed');
    return task;
  }

  private end(token: string, reason: EndReason): void {
    const task = this.pending.get(token);
    if (!task) return;
    clearTimeout(task.heartbeatTimer);
    clearTimeout(task.timeoutTimer);
    this.pending.delete(token);
    this.ended.set(token, reason);
    if (this.ended.size > ENDED_TOKENS_KEPT) this.ended.delete(this.ended.keys().next().value!);
  }
}
