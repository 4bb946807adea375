import { defineRoute } from '../pipeline';
import { usageForPeriod } from '../../domain/usage/service';

export const handler = defineRoute('legacyUsage', async ({ query }, { deps, org, now }) => ({
  body: { usage: await usageForPeriod(deps.usage, org, query.period, now), period: query.period },
}));
