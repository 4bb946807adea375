// Sends JSON messages to one SQS queue in batches (SendMessageBatch takes 10 entries and
// 256 KiB at most), resending entries the service reports as failed.
import { SendMessageBatchCommand, type SendMessageBatchRequestEntry, type SQSClient } from '@aws-sdk/client-sqs';

export interface MessageSender {
  /** Sends every body (JSON-encoded); resolves once all are accepted, throws otherwise. */
  sendAll(bodies: readonly unknown[]): Promise<void>;
}

const MAX_ENTRIES = 10;
const MAX_BATCH_BYTES = 262_144;
const ATTEMPTS = 3;

export function createSqsSender(sqs: SQSClient, queueUrl: string): MessageSender {
  return {
    async sendAll(bodies) {
      const encoded = bodies.map((body) => JSON.stringify(body));
      for (const text of encoded) {
        if (Buffer.byteLength(text) > MAX_BATCH_BYTES)
          throw new Error(`SQS message of ${Buffer.byteLength(text)} bytes exceeds ${MAX_BATCH_BYTES}`);
      }
      for (const chunk of chunks(encoded)) await sendChunk(sqs, queueUrl, chunk);
    },
  };
}

function* chunks(texts: string[]): Generator<string[]> {
  let chunk: string[] = [];
  let bytes = 0;
  for (const text of texts) {
    const size = Buffer.byteLength(text);
    if (chunk.length === MAX_ENTRIES || (chunk.length > 0 && bytes + size > MAX_BATCH_BYTES)) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(text);
    bytes += size;
  }
  if (chunk.length) yield chunk;
}

async function sendChunk(sqs: SQSClient, queueUrl: string, texts: string[]): Promise<void> {
  let entries: SendMessageBatchRequestEntry[] = texts.map((text, i) => ({ Id: String(i), MessageBody: text }));
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const result = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
    const failed = new Set((result.Failed ?? []).map((f) => f.Id));
    if (failed.size === 0) return;
    const permanent = (result.Failed ?? []).find((f) => f.SenderFault);
    if (permanent) throw new Error(`SQS rejected a message: ${permanent.Code} ${permanent.Message ?? ''}`);
    entries = entries.filter((e) => failed.has(e.Id));
  }
  throw new Error(`SQS did not accept ${entries.length} message(s) after ${ATTEMPTS} attempts`);
}
