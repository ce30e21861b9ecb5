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
 * Issue 12, finding 4: no catalogue request reads more than a bounded number of index entries,
 * whatever the filter or the offset. The window is a parameter of the adapter (paging.ts maxWindow
 * in service); here it is 50 over a catalogue of 300, and an SDK middleware counts what is read.
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
      { bookTextId: newObjectId(), jobId: newJobId(), fileId: newObjectId(), userId: owner, fileName: `b${i}.pdf`, status: 'completed', language: 'ar', tags: i === 0 ? ['rare'] : ['common'], categories: [], visibility: 'public', pageCount: i, metadata: {} },
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

const query = (q: Partial<CatalogueQuery> & { tags?: string[] }): CatalogueQuery => ({
  view: { kind: 'public' },
  order: 'date',
  descending: true,
  filter: { tags: q.tags ?? [], categories: [] },
  limit: 20,
  offset: 0,
  ...q,
});

async function measure(q: CatalogueQuery) {
  read = { queries: 0, examined: 0 };
  const page = await catalogue(db, q, window);
  return { page, ...read };
}

describe('the catalogue listing window', () => {
  it('reads no more than the window for a filter that matches only the oldest book', async () => {
    const { page, examined } = await measure(query({ tags: ['rare'] }));
    expect(examined).toBeLessThanOrEqual(window);
    // The rare book is the oldest, outside the newest 50: not found, and nothing past the window read.
    expect(page).toMatchObject({ total: 0, items: [] });
    // Oldest first it is the first entry of the window.
    const asc = await measure(query({ tags: ['rare'], descending: false }));
    expect(asc.page.total).toBe(1);
    expect(asc.examined).toBeLessThanOrEqual(window);
  });

  it('counts a common filter within the window, and pages inside it', async () => {
    const { page, examined } = await measure(query({ tags: ['common'], offset: 40, limit: 20 }));
    expect(examined).toBeLessThanOrEqual(window);
    expect(page.total).toBe(window);
    expect(page.items.map((b) => b.fileName)).toEqual(Array.from({ length: 10 }, (_, i) => `b${size - 41 - i}.pdf`));
  });

  it('reads no more than the window for an unfiltered page past it, and keeps the counted total', async () => {
    const { page, examined } = await measure(query({ offset: 45, limit: 20 }));
    expect(examined).toBeLessThanOrEqual(window);
    expect(page.total).toBe(size);
    expect(page.items).toHaveLength(5);
  });

  it('reads no more than the window for the other orders', async () => {
    for (const order of ['name', 'pages'] as const) {
      const { examined } = await measure(query({ order, tags: ['nothing'] }));
      expect(examined, order).toBeLessThanOrEqual(window);
    }
  });
});
