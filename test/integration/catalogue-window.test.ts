import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { bookTextItem } from '../../lib/adapters/dynamo/book-texts.ts';
import { batchPut } from '../../lib/adapters/dynamo/books.ts';
import { catalogue } from '../../lib/adapters/dynamo/catalogue.ts';
import { ensureTable } from '../../lib/adapters/dynamo/ensure-table.ts';
import { keys } from '../../lib/adapters/dynamo/keys.ts';
import { newJobId, newObjectId } from '../../lib/ids.ts';
import { newBookText } from '../../lib/ocr/book-text.ts';
import type { CatalogueQuery } from '../../lib/ocr/catalogue/store.ts';
import { testDb } from '../support/stores.ts';

/**
 * Issue 12, finding 4, and issue 17: no catalogue request reads more than a bounded number of index
 * entries, whatever the offset (filtered and deeper listings are the search index's:
 * lib/ocr/catalogue/listing.ts). The window is a parameter of the adapter (paging.ts maxWindow in
 * service); here it is 50 over a catalogue of 300, and an SDK middleware counts what is read.
 */
const tableName = `window-${randomUUID()}`;
const db = { ...testDb(), tableName };
const size = 300;
const window = 50;
let read = { queries: 0, examined: 0 };

beforeAll(async () => {
  const client = new DynamoDBClient({});
  await ensureTable(client, tableName);
  client.destroy();
  const owner = newObjectId();
  const items = Array.from({ length: size }, (_, i) => {
    const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    const book = newBookText(
      { bookTextId: newObjectId(), jobId: newJobId(), fileId: newObjectId(), userId: owner, fileName: `b${i}.pdf`, status: 'completed', language: 'ar', tags: [], categories: [], visibility: 'public', pageCount: i, metadata: {} },
      at,
    );
    return bookTextItem(book);
  });
  await batchPut(db, [...items, { ...keys.catalogueCounts, public: size, private: 0 }]);
  db.client.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      if (context.commandName === 'QueryCommand') {
        read.queries++;
        read.examined += (out.output as { ScannedCount?: number }).ScannedCount ?? 0;
      }
      return out;
    },
    { step: 'initialize', name: 'windowMeter' },
  );
}, 60_000);

const query = (q: Partial<CatalogueQuery>): CatalogueQuery => ({ view: { kind: 'public' }, order: 'date', descending: true, limit: 20, offset: 0, ...q });

async function measure(q: CatalogueQuery) {
  read = { queries: 0, examined: 0 };
  const page = await catalogue(db, q, window);
  return { page, ...read };
}

describe('the catalogue listing window (the table serves unfiltered first pages)', () => {
  it('reads a first page in one Query of offset + limit entries, with the counted total', async () => {
    const { page, examined, queries } = await measure(query({ offset: 20, limit: 20 }));
    expect({ examined, queries }).toEqual({ examined: 40, queries: 1 });
    expect(page.total).toBe(size);
    expect(page.items.map((b) => b.fileName)).toEqual(Array.from({ length: 20 }, (_, i) => `b${size - 21 - i}.pdf`));
  });

  it('reads no more than the window for an unfiltered page past it, and keeps the counted total', async () => {
    const { page, examined } = await measure(query({ offset: 45, limit: 20 }));
    expect(examined).toBeLessThanOrEqual(window);
    expect(page.total).toBe(size);
    expect(page.items).toHaveLength(5);
  });

  it('reads offset + limit entries for the other orders too', async () => {
    for (const order of ['name', 'pages'] as const) {
      const { examined, page } = await measure(query({ order, descending: false, limit: 10 }));
      expect(examined, order).toBe(10);
      expect(page.items, order).toHaveLength(10);
    }
  });
});
