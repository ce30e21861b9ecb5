import { dynamoDocumentClient } from '../../lib/adapters/aws/clients.ts';
import { dynamoOcrStore } from '../../lib/adapters/dynamo/book-texts.ts';
import { dynamoBookStore } from '../../lib/adapters/dynamo/books.ts';
import { dynamoDeviceStore } from '../../lib/adapters/dynamo/devices.ts';
import { dynamoNotificationStore } from '../../lib/adapters/dynamo/notifications.ts';
import { dynamoSubscriptionStore } from '../../lib/adapters/dynamo/subscriptions.ts';
import { dynamoUserStore } from '../../lib/adapters/dynamo/users.ts';
import type { Db } from '../../lib/adapters/dynamo/table.ts';

/** Stores over the embedded DynamoDB that the global setup started (TABLE_NAME and endpoint from env). */
export function testDb(): Db {
  return { client: dynamoDocumentClient(), tableName: process.env.TABLE_NAME! };
}

export function testStores(db: Db = testDb()) {
  return {
    users: dynamoUserStore(db),
    subscriptions: dynamoSubscriptionStore(db),
    books: dynamoBookStore(db),
    notifications: dynamoNotificationStore(db),
    devices: dynamoDeviceStore(db),
    ocr: dynamoOcrStore(db),
  };
}
