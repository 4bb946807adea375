import { defineRoute } from '../pipeline';
import { openApiDocument } from '../../contracts/openapi';

export const handler = defineRoute('openapi', () => ({ body: openApiDocument() }));
