import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { dynamoDocumentClient } from '../../lib/adapters/aws/clients.ts';
import { ensureTable } from '../../lib/adapters/dynamo/ensure-table.ts';
import { dynamoBookStore } from '../../lib/adapters/dynamo/books.ts';
import { dynamoDeviceStore } from '../../lib/adapters/dynamo/devices.ts';
import { dynamoNotificationStore } from '../../lib/adapters/dynamo/notifications.ts';
import { dynamoSubscriptionStore } from '../../lib/adapters/dynamo/subscriptions.ts';
import { dynamoUserStore } from '../../lib/adapters/dynamo/users.ts';
import { dynamoOcrStores } from '../../lib/adapters/dynamo/ocr-stores.ts';
import type { Db } from '../../lib/adapters/dynamo/table.ts';
import { indexWrites } from '../../lib/search/read-after-write.ts';
import { FakePush } from './fakes/notifications.ts';
import { FakeSearchEngine } from './fakes/search-engine.ts';

/** Stores over the embedded DynamoDB that the global setup started (TABLE_NAME and endpoint from env). */
export function testDb(): Db {
  return { client: dynamoDocumentClient(), tableName: process.env.TABLE_NAME! };
}

/** Makes the table (the test stack's, or `tableName`) with every index, if it is not there yet. */
export async function ensureTestTable(tableName = process.env.TABLE_NAME!): Promise<void> {
  const client = new DynamoDBClient({});
  try {
    await ensureTable(client, tableName);
  } finally {
    client.destroy();
  }
}

export function testStores(db: Db = testDb()) {
  const ocr = dynamoOcrStores(db);
  const search = new FakeSearchEngine();
  return {
    ...ocr,
    /** The write path's index (read after write), over an in-memory engine. */
    search,
    index: indexWrites({ engine: search, ...ocr }),
    users: dynamoUserStore(db),
    subscriptions: dynamoSubscriptionStore(db),
    books: dynamoBookStore(db),
    notifications: dynamoNotificationStore(db),
    devices: dynamoDeviceStore(db),
    /** The inbox and devices in the table, pushes kept in memory (`push.sent`). */
    inbox: { notifications: dynamoNotificationStore(db), devices: dynamoDeviceStore(db), push: new FakePush(), now: () => new Date() },
    /** All of lib/ocr's ports in one handle, for a test's setup and its look at what was stored. */
    ocr: { ...ocr.bookTexts, ...ocr.ocrJobs, ...ocr.pages, ...ocr.catalogue },
  };
}
