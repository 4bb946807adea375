// The client factory's wire format: SigV4 by the SDK itself, with the credential chain towards
// AWS and the local credentials towards a local engine (over HTTP, as any other process reaches
// it). AWS itself cannot be reached here, so the AWS-bound request is captured at the request
// handler, after every middleware (signing included) has run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { createClients } from '../../lambdas/adapters/clients';
import { createSfnClient } from '../../lambdas/adapters/sfn-client';
import { loadConfig } from '../../lambdas/config';

describe('request signing', () => {
  let server: Server;
  let authorization = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      authorization = String(req.headers.authorization ?? '');
      res.setHeader('content-type', 'application/x-amz-json-1.0');
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('signs with the local credentials towards a local endpoint, over HTTP', async () => {
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { dynamodb } = createClients({ ...loadConfig({}), endpoints: { dynamodb: endpoint } });
    await dynamodb.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } }));
    expect(authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/us-east-1\/dynamodb\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/,
    );
    dynamodb.destroy();
  });

  it('signs for real (SigV4 with the credential chain) when no local endpoint is configured', async () => {
    const previous = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
    process.env.AWS_SECRET_ACCESS_KEY = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
    try {
      const { dynamodb } = createClients({ ...loadConfig({ AWS_REGION: 'eu-west-1' }) });
      let captured: { hostname?: string; headers: Record<string, string> } | undefined;
      (dynamodb.config as unknown as { requestHandler: unknown }).requestHandler = {
        handle: async (request: { hostname: string; headers: Record<string, string> }) => {
          captured = request;
          throw Object.assign(new Error('captured'), { name: 'Captured', $metadata: {} });
        },
        destroy() {},
      };
      await expect(dynamodb.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } }))).rejects.toThrow(
        'captured',
      );
      expect(captured?.hostname).toBe('dynamodb.eu-west-1.amazonaws.com');
      expect(captured?.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/,
      );
      expect(captured?.headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
      dynamodb.destroy();
    } finally {
      process.env.AWS_ACCESS_KEY_ID = previous.id;
      process.env.AWS_SECRET_ACCESS_KEY = previous.secret;
      if (previous.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      if (previous.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    }
  });
});

describe('SDK logging', () => {
  it('drops the logger middleware, which copies every input and output through the sensitive-data filter', async () => {
    const server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/x-amz-json-1.0');
      res.end('{"Item":{"pk":{"S":"a"}}}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const clients = createClients({
        ...loadConfig({}),
        endpoints: { dynamodb: endpoint, sqs: endpoint, stepFunctions: endpoint },
      });
      const sfn = createSfnClient({ ...loadConfig({}), endpoints: { stepFunctions: endpoint } }, clients);
      for (const client of [clients.dynamodb, clients.documents, clients.sqs, sfn]) {
        const names = client.middlewareStack.identify().join(' ');
        expect(names).toContain('retryMiddleware');
        expect(names).not.toContain('loggerMiddleware');
      }
      const read = await clients.dynamodb.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } }));
      expect(read.Item).toEqual({ pk: { S: 'a' } });
      clients.dynamodb.destroy();
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
