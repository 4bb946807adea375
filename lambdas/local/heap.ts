// The local service's V8 heap, set by the local entry point (bin/local.ts) before anything loads.
// Under load the process holds ~60 MB of live objects, but V8 lets the old generation grow to up
// to 4x the live size when allocation is fast: ~240 MB of heap for 64 MB live, RSS near 480 MB
// in `npm run bench -- soak`. Growing by 1.5x of the live size instead keeps RSS near 250-300 MB
// at the cost of more frequent (mostly concurrent) major collections. Lambda sizes its own heap.
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 50;

setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
