/**
 * The single table's physical schema: key attributes and secondary indexes. The CDK stack and the
 * local runtime both create the table from this, so the two cannot drift.
 */
export const tableSchema = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds after which DynamoDB may delete an item (dedup records, abandoned uploads). */
  timeToLiveAttribute: 'ttl',
  /** Generic string-keyed GSIs, each shared by several access patterns (see keys.ts). */
  indexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  ],
} as const;

export type IndexName = (typeof tableSchema.indexes)[number]['name'];
