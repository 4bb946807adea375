// Every AWS SDK client is built here, with explicit endpoints when running on the embedded
// engines. fauxqs hands out queue URLs on a host that does not resolve, hence
// useQueueUrlAsEndpoint: false.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SFNClient } from '@aws-sdk/client-sfn';
import type { Config } from '../config';

const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export interface AwsClients {
  dynamodb: DynamoDBClient;
  documents: DynamoDBDocumentClient;
  sqs: SQSClient;
  sfn: SFNClient;
}

export function createClients(config: Config): AwsClients {
  const { endpoints, region } = config;
  const dynamodb = new DynamoDBClient({
    region,
    ...(endpoints.dynamodb ? { endpoint: endpoints.dynamodb, credentials: localCredentials } : {}),
  });
  const documents = DynamoDBDocumentClient.from(dynamodb, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
  });
  const sqs = new SQSClient({
    region,
    ...(endpoints.sqs ? { endpoint: endpoints.sqs, credentials: localCredentials, useQueueUrlAsEndpoint: false } : {}),
  });
  const sfn = new SFNClient({
    region,
    ...(endpoints.stepFunctions ? { endpoint: endpoints.stepFunctions, credentials: localCredentials } : {}),
  });
  return { dynamodb, documents, sqs, sfn };
}
