// The affiliate capability: the merchant directory the base already holds, the configured link
// template, and the device ids on the organization items.
import { dynamoAffiliateDeviceStore } from '../adapters/dynamodb/affiliate-devices';
import { createAffiliate } from '../domain/affiliate/links';
import { compileLinkTemplate } from '../domain/affiliate/template';
import { capability } from './container';

export const affiliateOf = capability((base) =>
  createAffiliate({
    merchants: base.merchants,
    template: compileLinkTemplate(base.config.affiliateLinkTemplate),
    devices: dynamoAffiliateDeviceStore(base.clients.documents, base.config.tableName),
    now: () => base.clock.now(),
  }),
);
