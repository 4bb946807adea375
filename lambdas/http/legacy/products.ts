import { notBuilt } from '../pipeline';

export const handler = notBuilt('legacyProducts');
