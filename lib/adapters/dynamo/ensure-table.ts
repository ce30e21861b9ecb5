import {
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTableCommand,
  type AttributeDefinition,
  type DynamoDBClient,
  type GlobalSecondaryIndex,
  type StreamSpecification,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { keyAttributeNames, tableSchema, type IndexSchema } from './schema.ts';
import { pause } from './table.ts';

/**
 * The table's stream: every change with the item before and after, as the CDK stack declares it
 * (infra/storage.ts). The search indexer reads it (locally: infra/local/stream-poller.ts).
 */
export const tableStream = { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } as const satisfies StreamSpecification;

const timeoutMs = 5 * 60_000; // adding an index to a big table on AWS takes minutes
const stringAttributes = (...names: string[]): AttributeDefinition[] =>
  names.map((AttributeName) => ({ AttributeName, AttributeType: 'S' }));
const indexDefinition = (index: IndexSchema): GlobalSecondaryIndex => ({
  IndexName: index.name,
  KeySchema: [
    { AttributeName: index.partitionKey, KeyType: 'HASH' },
    { AttributeName: index.sortKey, KeyType: 'RANGE' },
  ],
  Projection: index.projection ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection] } : { ProjectionType: 'ALL' },
});

/**
 * Creates the table of `schema.ts` with its stream when it is missing, adds any index of the schema
 * that an existing table lacks (one at a time, as DynamoDB requires) and enables the stream on a table
 * made without one (a local DATA_DIR from before the search indexer), and returns once table and
 * indexes are ACTIVE. Idempotent; concurrent callers settle on the same table.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  if (!(await describe(client, tableName))) {
    const { partitionKey, sortKey, indexes } = tableSchema;
    await client
      .send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: stringAttributes(...keyAttributeNames()),
          KeySchema: [
            { AttributeName: partitionKey, KeyType: 'HASH' },
            { AttributeName: sortKey, KeyType: 'RANGE' },
          ],
          GlobalSecondaryIndexes: indexes.map(indexDefinition),
          StreamSpecification: tableStream,
        }),
      )
      .catch(ignoreRace);
  }
  for (;;) {
    const table = await waitUntilActive(client, tableName, deadline);
    const missing = tableSchema.indexes.find((index) => !table.GlobalSecondaryIndexes?.some((g) => g.IndexName === index.name));
    if (!missing) {
      const stream = table.StreamSpecification;
      if (stream?.StreamEnabled && stream.StreamViewType === tableStream.StreamViewType) return;
      // A stream of another view type is disabled first: a table has one stream at a time.
      const StreamSpecification = stream?.StreamEnabled ? { StreamEnabled: false } : tableStream;
      const changed = await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification })).then(() => true, ignoreRace);
      if (changed) continue;
      if (Date.now() > deadline) throw new Error(`could not enable the stream of table ${tableName}`);
      await pause(200);
      continue;
    }
    const added = await client
      .send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: stringAttributes(missing.partitionKey, missing.sortKey),
          GlobalSecondaryIndexUpdates: [{ Create: indexDefinition(missing) }],
        }),
      )
      .then(() => true, ignoreRace);
    if (added) continue;
    // Someone else is changing the table: look again shortly.
    if (Date.now() > deadline) throw new Error(`could not add index ${missing.name} to table ${tableName}`);
    await pause(200);
  }
}

/** Another caller got there first: the table or index exists, or the table is being changed. */
function ignoreRace(error: unknown): false {
  const name = (error as Error).name;
  const message = (error as Error).message ?? '';
  if (name === 'ResourceInUseException' || name === 'LimitExceededException') return false;
  if (name === 'ValidationException' && /already exists|already has an enabled stream|stream is already disabled/i.test(message)) return false;
  throw error;
}

async function describe(client: DynamoDBClient, tableName: string): Promise<TableDescription | undefined> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if ((error as Error).name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

async function waitUntilActive(client: DynamoDBClient, tableName: string, deadline: number): Promise<TableDescription> {
  for (let delay = 50; ; delay = Math.min(delay * 2, 2_000)) {
    const table = await describe(client, tableName); // briefly missing right after a create on AWS
    const active = table?.TableStatus === 'ACTIVE' && (table.GlobalSecondaryIndexes ?? []).every((i) => i.IndexStatus === 'ACTIVE');
    if (table && active) return table;
    if (Date.now() > deadline) {
      throw new Error(`table ${tableName} is not ACTIVE after ${timeoutMs / 1000} s (status ${table?.TableStatus ?? 'missing'})`);
    }
    await pause(delay);
  }
}

