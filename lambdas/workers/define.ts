// Every worker module's `handler`: the Lambda event plus this process's container, so workers
// reach adapters only through the one composition root.
import type { Context } from 'aws-lambda';
import { getContainer, type Container } from '../composition/container';

export type WorkerImpl<E, R> = (event: E, deps: Container, context?: Context) => Promise<R>;

export function defineWorker<E, R>(impl: WorkerImpl<E, R>): (event: E, context?: Context) => Promise<R> {
  return (event, context) => impl(event, getContainer(), context);
}
