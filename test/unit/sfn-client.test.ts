// The Step Functions client is built by its own module (lambdas/adapters/sfn-client.ts), loaded
// with the workflow engine on first use, so assets that never move an execution do not hold it.
// Built later than the other clients, it still joins them: the container's dispose destroys it,
// and X-Ray tracing, prepared before it existed, captures it when it is built.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClients, destroyClients, onAdoptedClient } from '../../lambdas/adapters/clients';
import { createSfnClient } from '../../lambdas/adapters/sfn-client';
import { loadConfig } from '../../lambdas/config';
import { createContainer } from '../../lambdas/composition/container';
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

  it("the container builds it on the first start, not when the engine's value is read", async () => {
    const clients = createClients(config);
    const heard: unknown[] = [];
    onAdoptedClient(clients, (client) => heard.push(client));
    const container = createContainer(config, { clients });
    // Reading the engine, the callbacks and the executions core (as v2's agentic jobs do) builds nothing.
    void container.workflows;
    void container.taskCallbacks;
    void container.executions;
    expect(heard).toEqual([]);
    // The first call loads the module and builds the client (the call itself fails: nothing listens on port 9).
    await expect(container.workflows.start('extract', 'extract-urls-x', {})).rejects.toThrow();
    expect(heard).toHaveLength(1);
    await expect(container.taskCallbacks.succeed('token', {})).rejects.toThrow();
    // One client for both.
    expect(heard).toHaveLength(1);
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
