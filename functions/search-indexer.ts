// placeholder, replaced by the real handler (issue 17: the index kept in step with the table's stream).
// It exists so that the CDK stack can bundle and deploy the function; it indexes nothing and reports
// every record as failed, so nothing is taken as indexed.
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';

export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => ({
  batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' })),
});
