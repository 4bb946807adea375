// The search indexer (AWS): woken by the table's stream when products or listings change, it
// catches up with the catalog change feed (the same code search Lambdas run) and writes the
// index snapshot to S3, where search Lambdas load it at cold start. Its warm instance keeps the
// index in memory between wake-ups; a cold one loads the last snapshot first.
import { searchOf } from '../composition/search';
import { defineWorker } from './define';

/** Feed catch-ups per wake-up (each reads up to 20,000 changes), bounded by the Lambda timeout. */
const MAX_ROUNDS = 50;

export const handler = defineWorker(async (_event: unknown, deps) => {
  let changed = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const step = await searchOf(deps).refresh({ force: true });
    changed += step;
    if (step === 0) break;
  }
  if (changed > 0) await searchOf(deps).save();
  return { changed };
});
