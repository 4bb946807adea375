// The affiliate capability from the container: the merchant directory it already holds, the
// configured link template, and the device ids on the organization items.
import type { Container } from './container';
import { dynamoAffiliateDeviceStore } from '../adapters/dynamodb/affiliate-devices';
import { createAffiliate, type Affiliate } from '../domain/affiliate/links';
import { compileLinkTemplate } from '../domain/affiliate/template';

export function createAffiliateCapability(
  container: Pick<Container, 'config' | 'clients' | 'clock' | 'merchants'>,
): Affiliate {
  return createAffiliate({
    merchants: container.merchants,
    template: compileLinkTemplate(container.config.affiliateLinkTemplate),
    devices: dynamoAffiliateDeviceStore(container.clients.documents, container.config.tableName),
    now: () => container.clock.now(),
  });
}
