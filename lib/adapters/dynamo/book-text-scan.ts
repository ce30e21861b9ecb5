import { paginateScan } from '@aws-sdk/lib-dynamodb';
import { entities } from './entities.ts';
import type { Db } from './table.ts';

/**
 * Every BookText's id, by a Scan of the whole table (filtered on `entity`), one page of up to 1 MB read
 * at a time. For offline tools only (the search backfill: scripts/reindex.ts, and `npm start` building a
 * missing index): never on a request path, where every read is by key (docs/data-model.md).
 */
export async function* scanBookTextIds(db: Db): AsyncGenerator<string> {
  const pages = paginateScan(
    { client: db.client },
    {
      TableName: db.tableName,
      FilterExpression: '#entity = :entity',
      ProjectionExpression: '#id',
      ExpressionAttributeNames: { '#entity': 'entity', '#id': 'bookTextId' },
      ExpressionAttributeValues: { ':entity': entities.bookText.name },
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      if (typeof item.bookTextId === 'string' && item.bookTextId !== '') yield item.bookTextId;
    }
  }
}
