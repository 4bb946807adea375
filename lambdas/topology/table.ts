// The single DynamoDB table: generic key names so every entity shares one table.
// Item layouts (pk/sk prefixes) are documented next to the store adapter that writes them.
export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Items with this attribute (epoch seconds) are deleted by DynamoDB after that time (idempotency records). */
  timeToLive: 'expiresAt',
  indexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  ],
} as const;
