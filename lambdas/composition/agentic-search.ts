// The agentic workflow's steps that read the search index (Understand query, Retrieve candidates).
import { agenticJobsWith } from './agentic';
import { capability } from './container';
import { searchOf } from './search';

export const agenticSearchJobsOf = capability((base) => agenticJobsWith(base, { search: searchOf(base) }));
