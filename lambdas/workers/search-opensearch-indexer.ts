// The OpenSearch indexer (AWS, `-c pds:search=opensearch`): woken by the table's stream (keys
// only, filtered to products, listings and removed-listing markers), it reads the items the
// batch names and writes their search documents to the domain in bulk. A batch that fails is
// retried and halved by the event source, then its description goes to the indexer's DLQ.
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { openSearchIndexerOf } from '../composition/opensearch';
import { defineWorker } from './define';

export const handler = defineWorker(async (event: DynamoDBStreamEvent, deps) =>
  openSearchIndexerOf(deps).handle(event.Records),
);
