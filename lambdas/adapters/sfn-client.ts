// The Step Functions client, in a module of its own: only the workflow engine and the task
// callbacks (lambdas/composition/step-functions.ts, loaded on their first call) build it, so a
// function that never starts, stops or answers an execution holds no @aws-sdk/client-sfn.
import { SFNClient } from '@aws-sdk/client-sfn';
import type { Config } from '../config';
import { adoptClient, localOptions, withoutSdkLogging, type AwsClients } from './clients';

/**
 * A Step Functions client for `config` (the embedded service's endpoint when it has one). With
 * `clients`, it joins them (adoptClient): their dispose destroys it and tracing captures it.
 */
export function createSfnClient(config: Pick<Config, 'region' | 'endpoints'>, clients?: AwsClients): SFNClient {
  const { endpoints, region } = config;
  const sfn = withoutSdkLogging(
    new SFNClient({
      region,
      ...(endpoints.stepFunctions ? localOptions(endpoints.stepFunctions) : {}),
    }),
  );
  return clients ? adoptClient(clients, sfn) : sfn;
}
