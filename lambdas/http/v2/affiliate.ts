import { notBuilt } from '../pipeline';

export const handler = notBuilt('v2Affiliate');
