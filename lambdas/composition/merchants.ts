// The affiliate merchant directory (built-in, or Config.affiliateMerchantsFile): for the routes
// that say which vendors are merchants and for affiliate links, the only users of the Public
// Suffix List it matches hosts with.
import { readFileSync } from 'node:fs';
import {
  BUILT_IN_MERCHANTS,
  createMerchantDirectory,
  parseMerchantList,
  type MerchantDirectory,
} from '../domain/affiliate/merchants';
import { capability } from './container';

export function loadMerchants(file: string | undefined): MerchantDirectory {
  if (!file) return createMerchantDirectory(BUILT_IN_MERCHANTS);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`Cannot read the affiliate merchant list ${file}: ${(error as Error).message}`);
  }
  return createMerchantDirectory(parseMerchantList(json));
}

export const merchantsOf = capability((base) => loadMerchants(base.config.affiliateMerchantsFile));
