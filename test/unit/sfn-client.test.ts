// The Step Functions client is built by its own module (lambdas/adapters/sfn-client.ts), imported
// by the workflow capability (lambdas/composition/step-functions.ts) only, so assets that never
// move an execution do not hold it. Built later than the other clients, it still joins them: the
// container's dispose destroys it, and X-Ray tracing, prepared before it existed, captures it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClients, destroyClients, onAdoptedClient } from '../../lambdas/adapters/clients';
import { createSfnClient } from '../../lambdas/adapters/sfn-client';
import { loadConfig } from '../../lambdas/config';
import { createContainer } from '../../lambdas/composition/container';
import { executionsOf } from '../../lambdas/composition/executions';
import { stepFunctionsOf } from '../../lambdas/composition/step-functions';
import { prepareTracing } from '../../lambdas/observability/tracing';

const ENDPOINT = 'http://127.0.0.1:9';
const config = { ...loadConfig({}), endpoints: { dynamodb: ENDPOINT, sqs: ENDPOINT, stepFunctions: ENDPOINT } };

afterEach(() => {
  delete process.env.AWS_EXECUTION_ENV;
});

describe('the Step Functions client', () => {
  it('joins the clients it is built for: listeners hear of it, and destroying the clients destroys it', () => {
    const clients = createClients(config);
    const heard: unknown[] = [];
    expect(onAdoptedClient(clients, (client) => heard.push(client))).toEqual([]);
    const sfn = createSfnClient(config, clients);
    expect(heard).toEqual([sfn]);
    // Later listeners get it among those adopted so far.
    expect(onAdoptedClient(clients, () => {})).toEqual([sfn]);
    const destroy = vi.spyOn(sfn, 'destroy');
    destroyClients(clients);
    expect(destroy).toHaveBeenCalledTimes(1);
    // Alone (tests, scripts) it is a plain client, without the SDK's logger middleware.
    const alone = createSfnClient(config);
    expect(alone.middlewareStack.identify().join(' ')).not.toContain('loggerMiddleware');
    alone.destroy();
  });

  it('is built by the workflow capability, once per container, not by the base container', async () => {
    const clients = createClients(config);
    const heard: unknown[] = [];
    onAdoptedClient(clients, (client) => heard.push(client));
    const container = createContainer(config, { clients });
    // The base every function holds builds none.
    expect(heard).toEqual([]);
    const { workflows, taskCallbacks } = stepFunctionsOf(container);
    expect(heard).toHaveLength(1);
    // The executions core and later reads reach the same one.
    void executionsOf(container);
    expect(stepFunctionsOf(container).workflows).toBe(workflows);
    expect(heard).toHaveLength(1);
    // Both calls fail (nothing listens on port 9) over the one client.
    await expect(workflows.start('extract', 'extract-urls-x', {})).rejects.toThrow();
    await expect(taskCallbacks.succeed('token', {})).rejects.toThrow();
    expect(heard).toHaveLength(1);
    // Another container (another test's) gets its own.
    const other = createContainer(config, { clients: createClients(config) });
    expect(stepFunctionsOf(other).workflows).not.toBe(workflows);
    other.dispose();
    container.dispose();
  });

  it('is captured by X-Ray when built after tracing was prepared, as the clients built before', async () => {
    // Powertools Tracer stays dormant outside a Lambda execution environment.
    process.env.AWS_EXECUTION_ENV = 'AWS_Lambda_nodejs22.x';
    const clients = createClients(config);
    await prepareTracing({ config: { tracing: true }, clients });
    const captured = (client: { middlewareStack: { identify(): string[] } }) =>
      client.middlewareStack.identify().some((name) => name.startsWith('XRaySDKInstrumentation'));
    expect(captured(clients.dynamodb)).toBe(true);
    const sfn = createSfnClient(config, clients);
    expect(captured(sfn)).toBe(true);
    // A client built without the container's clients is not captured (nothing to hear of it).
    const alone = createSfnClient(config);
    expect(captured(alone)).toBe(false);
    destroyClients(clients);
    alone.destroy();
  });
});
