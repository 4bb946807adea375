import { defineRoute } from '../pipeline';

export const handler = defineRoute('health', () => ({ body: { status: 'ok' as const } }));
