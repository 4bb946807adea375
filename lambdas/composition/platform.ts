// Composition root of the platform capabilities (accounts, usage, rate limits, vendors,
// affiliate merchants): built lazily once per cold start from loadConfig() + createClients().
import { readFileSync } from 'node:fs';
import { loadConfig, type Config } from '../config';
import { createClients, type AwsClients } from '../adapters/clients';
import { dynamoAccountStore } from '../adapters/dynamodb/accounts';
import { dynamoUsageStore } from '../adapters/dynamodb/usage';
import { dynamoRateLimitStore } from '../adapters/dynamodb/ratelimit';
import { dynamoVendorStore } from '../adapters/dynamodb/vendors';
import type { AccountStore } from '../ports/accounts';
import type { UsageStore } from '../ports/usage';
import type { RateLimitStore } from '../ports/ratelimit';
import type { VendorStore } from '../ports/vendors';
import { BUILT_IN_MERCHANTS, createMerchantDirectory, parseMerchantList, type MerchantDirectory } from '../domain/affiliate/merchants';
import * as accounts from '../domain/accounts/service';
import { withKeyCache } from '../domain/accounts/cache';
import { createUsageMeter, type UsageMeter } from '../domain/usage/meter';
import { withVendorListCache } from '../domain/vendors/list-cache';
import * as vendors from '../domain/vendors/service';
import type { ProductSeen, ProductsSeen } from '../domain/vendors/model';

export interface PlatformDeps {
  config: Config;
  clients: AwsClients;
  accounts: AccountStore;
  usage: UsageStore;
  /** Counts authenticated calls, coalescing concurrent ones into one write per counter. */
  meter: UsageMeter;
  rateLimits: RateLimitStore;
  vendors: VendorStore;
  merchants: MerchantDirectory;
  now(): Date;
}

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

export function createPlatformDeps(config: Config, clients: AwsClients = createClients(config)): PlatformDeps {
  const { documents } = clients;
  const usage = dynamoUsageStore(documents, config.tableName);
  return {
    config,
    clients,
    // Per-process caches, each with its staleness bound stated where it is defined.
    accounts: withKeyCache(dynamoAccountStore(documents, config.tableName)),
    usage,
    meter: createUsageMeter(usage.add),
    rateLimits: dynamoRateLimitStore(documents, config.tableName),
    vendors: withVendorListCache(dynamoVendorStore(documents, config.tableName)),
    merchants: loadMerchants(config.affiliateMerchantsFile),
    now: () => new Date(),
  };
}

let cached: PlatformDeps | undefined;

export function getPlatformDeps(): PlatformDeps {
  cached ??= createPlatformDeps(loadConfig());
  return cached;
}

/** Forgets the cached deps so the next call re-reads the config (tests, local runtime restarts). */
export function resetPlatformDeps(): void {
  cached?.clients.dynamodb.destroy();
  cached = undefined;
}

/** PDS_BOOTSTRAP_KEYS="<key>:<org>[:<scope>+<scope>],..." -> those orgs and keys; idempotent. */
export const bootstrapKeys = (spec: string | undefined, deps: PlatformDeps = getPlatformDeps()) =>
  accounts.bootstrapKeys(deps.accounts, spec, deps.now());

/** The development key on the very first start (to print once), else null. */
export const ensureDevelopmentKey = (deps: PlatformDeps = getPlatformDeps()) => accounts.ensureDevelopmentKey(deps.accounts, deps.now());

/** For the extraction jobs: a product of `vendor` was stored (newProduct: first time seen). */
export const recordProductSeen = (event: ProductSeen, deps: PlatformDeps = getPlatformDeps()) =>
  vendors.recordProductSeen(deps.vendors, event);

/** For the extraction jobs' batches: products of one `vendor` stored together, one vendor write. */
export const recordProductsSeen = (event: ProductsSeen, deps: PlatformDeps = getPlatformDeps()) =>
  vendors.recordProductsSeen(deps.vendors, event);
