// A patch to dynalite 4.0.0, applied by the local runtime before it starts dynalite (./engines.ts).
//
// Why: dynalite reads LevelDB through streams over abstract-level iterators, and closes an
// iterator from its stream's destroy by calling `iterator.return()` (dynalite/db/index.js,
// createKeyStream and createValueStream), the method of JavaScript's async-iterator protocol.
// abstract-level 3's iterators have no `return()`: they close with `close()`. So every Query,
// Scan and ListTables left its iterator open and attached to the database, holding a native
// LevelDB iterator, and the local service's memory grew with every query (soak bench: RSS from
// 406 to 486 MB over five rounds; flat near 280 MB with the iterators closed).
//
// The fix gives the iterators the `return()` dynalite calls: its own stream teardown then closes
// each iterator when its read ends, and when a Query stops at its Limit (dynalite destroys the
// stream then). Drop this module once dynalite closes its iterators itself:
// test/integration/dynalite-iterators.test.ts checks that the bug is still there.
import { createRequire } from 'node:module';

interface IteratorClass {
  prototype: { return?: (this: { close(): Promise<void> }) => Promise<IteratorReturnResult<undefined>> };
}

/** The iterator classes of the abstract-level that dynalite's databases (classic-level, memory-level) build on. */
export function dynaliteIteratorClasses(): IteratorClass[] {
  const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  const level = fromDynalite('abstract-level') as Record<string, IteratorClass>;
  return ['AbstractIterator', 'AbstractKeyIterator', 'AbstractValueIterator'].map((name) => level[name]!);
}

/** Gives abstract-level's iterators the `return()` dynalite closes them with; applying it again changes nothing. */
export function closeDynaliteIterators(): void {
  for (const type of dynaliteIteratorClasses()) {
    type.prototype.return ??= async function () {
      await this.close();
      return { done: true, value: undefined };
    };
  }
}
