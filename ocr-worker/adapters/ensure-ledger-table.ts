import { CreateTableCommand, DescribeTableCommand, UpdateTimeToLiveCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ledgerKeys } from './dynamo-ledger.ts';

/**
 * Creates the worker's ledger table when it is missing (locally, in the embedded DynamoDB; on AWS the
 * stack creates it) and waits until it is ACTIVE. Idempotent; concurrent callers settle on one table.
 */
export async function ensureLedgerTable(client: DynamoDBClient, tableName: string): Promise<void> {
  const exists = await client.send(new DescribeTableCommand({ TableName: tableName })).then(
    () => true,
    (error: Error) => {
      if (error.name === 'ResourceNotFoundException') return false;
      throw error;
    },
  );
  if (!exists) {
    await client
      .send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [
            { AttributeName: ledgerKeys.partitionKey, AttributeType: 'S' },
            { AttributeName: ledgerKeys.sortKey, AttributeType: 'S' },
          ],
          KeySchema: [
            { AttributeName: ledgerKeys.partitionKey, KeyType: 'HASH' },
            { AttributeName: ledgerKeys.sortKey, KeyType: 'RANGE' },
          ],
        }),
      )
      .catch((error: Error) => {
        if (error.name !== 'ResourceInUseException') throw error; // another caller created it
      });
  }
  for (let delay = 50; ; delay = Math.min(delay * 2, 2_000)) {
    const table = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
    if (table?.TableStatus === 'ACTIVE') break;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
  if (!exists) {
    await client
      .send(new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: ledgerKeys.ttl, Enabled: true } }))
      .catch(() => undefined); // expiry is housekeeping: a table without it still works
  }
}
