// The affiliate capability: the merchant directory, the configured link
// template, and the device ids on the organization items.
import { dynamoAffiliateDeviceStore } from '../adapters/dynamodb/affiliate-devices';
import { createAffiliate } from '../domain/affiliate/links';
import { compileLinkTemplate } from '../domain/affiliate/template';
import { capability } from './container';
import { merchantsOf } from './merchants';

export const affiliateOf = capability((base) =>
  createAffiliate({
    merchants: merchantsOf(base),
    template: compileLinkTemplate(base.config.affiliateLinkTemplate),
    devices: dynamoAffiliateDeviceStore(base.clients.documents, base.config.tableName),
    now: () => base.clock.now(),
  }),
);
