// A webhook receiver on loopback that records every signed delivery and holds the first one
// unanswered (so a test can stop or kill the service while a delivery is in flight).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../../lambdas/domain/webhooks/model';

export interface Received {
  deliveryId: string;
  body: string;
  json: any;
  signatureValid: boolean;
}

export interface HoldingReceiver {
  readonly received: Received[];
  /** The first delivery's response, once it arrived; the test ends it. */
  readonly held: ServerResponse | null;
  /** The organization's webhook secret, to check signatures against. */
  secret: string;
  listen(): Promise<number>;
  close(): Promise<void>;
}

export function holdingReceiver(): HoldingReceiver {
  let server: Server | undefined;
  let held: ServerResponse | null = null;
  let holdNext = true;
  const receiver: HoldingReceiver = {
    received: [],
    get held() {
      return held;
    },
    secret: '',
    listen() {
      server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          const headers = request.headers as Record<string, string>;
          receiver.received.push({
            deliveryId: headers['x-pds-delivery-id'],
            body,
            json: JSON.parse(body),
            signatureValid: verifySignature(
              receiver.secret,
              { timestamp: headers['x-pds-timestamp'], signature: headers['x-pds-signature'] },
              body,
              Date.now(),
            ),
          });
          if (holdNext) {
            holdNext = false;
            held = response;
            return;
          }
          response.writeHead(200).end('ok');
        });
      });
      return new Promise((resolve) =>
        server!.listen(0, '127.0.0.1', () => resolve((server!.address() as AddressInfo).port)),
      );
    },
    close() {
      held?.destroy();
      return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
    },
  };
  return receiver;
}

/** Polls `probe` every 100 ms (at most 600 times) until it gives a value. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}
