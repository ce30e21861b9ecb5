/**
 * The single table's physical schema: key attributes and secondary indexes. The CDK stack and the
 * local runtime both create the table from this, so the two cannot drift.
 */

/**
 * What the catalogue indexes carry besides their keys, and nothing that a page callback rewrites
 * often. Only `bookTextId` is read now (filtered listings moved to the search index, issue 17); the
 * filter fields stay projected, since changing a deployed index's projection means rebuilding it.
 */
export const catalogueProjection = ['bookTextId', 'fileId', 'userId', 'status', 'language', 'tags', 'categories'] as const;

export interface IndexSchema {
  name: string;
  partitionKey: string;
  sortKey: string;
  /** Non-key attributes copied into the index (INCLUDE); absent means every attribute (ALL). */
  projection?: readonly string[];
}

const indexes: readonly IndexSchema[] = [
  // Generic string-keyed GSIs, each shared by several access patterns (see keys.ts).
  { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  // The book catalogue (GET /ocr/books): one partition per visibility, one index per sort order.
  { name: 'catalogueByDate', partitionKey: 'catalogue', sortKey: 'byDate', projection: catalogueProjection },
  { name: 'catalogueByName', partitionKey: 'catalogue', sortKey: 'byName', projection: catalogueProjection },
  { name: 'catalogueByPages', partitionKey: 'catalogue', sortKey: 'byPages', projection: catalogueProjection },
];

export const tableSchema = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds after which DynamoDB may delete an item (dedup records, abandoned uploads). */
  timeToLiveAttribute: 'ttl',
  indexes,
} as const;

/** Every key attribute of the table and its indexes, once each (an attribute may key several indexes). */
export const keyAttributeNames = (): string[] => [
  ...new Set([tableSchema.partitionKey, tableSchema.sortKey, ...tableSchema.indexes.flatMap((i) => [i.partitionKey, i.sortKey])]),
];
