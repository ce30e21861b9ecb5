import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { customerOf, type Billing, type Invoice, type InvoiceRecord, type OverageCharge } from '../../billing/billing.ts';
import { entities, type StoredInvoice } from '../dynamo/entities.ts';
import { keys } from '../dynamo/keys.ts';
import { queryAll, record, type Db } from '../dynamo/table.ts';

const withoutCustomer = ({ customerId: _, ...rest }: OverageCharge) => rest;

/** The customer the local seed gives a user it seeds with a subscription (a paying customer). */
export const ledgerCustomerId = (userId: string) => `cus_local_${userId}`;

/**
 * The local runtime's stand-in for Stripe: one invoice item per usage record in the table, which
 * the CLI's `billing invoices USER_ID` lists. A retry for the same usageId finds the stored invoice.
 * As strict as Stripe where it matters: a charge without a customer is refused, writing nothing.
 * It keeps no directory of customers (any id from a seed or a signed webhook event is taken).
 */
export function ledgerBilling(db: Db): Billing & { invoices(userId: string): Promise<InvoiceRecord[]> } {
  const TableName = db.tableName;
  return {
    async invoiceOverage(charge) {
      customerOf(charge);
      const invoice: Invoice = { invoiceId: `in_local_${charge.usageId}`, status: 'open' };
      const item = entities.invoice.item({ ...withoutCustomer(charge), ...invoice });
      try {
        await db.client.send(
          new PutCommand({
            TableName,
            // customerId is left out: the ledger charges no one.
            Item: item,
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return invoice;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
      const { Item } = await db.client.send(new GetCommand({ TableName, Key: entities.invoice.key(item), ConsistentRead: true }));
      const stored = record<StoredInvoice>(Item!);
      return { invoiceId: stored.invoiceId, status: stored.status };
    },

    /** Oldest first: the sort key starts with the usage record's createdAt. */
    async invoices(userId) {
      const stored = await queryAll<StoredInvoice>(db, {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.userPartition(userId), ':prefix': keys.invoicePrefix },
      });
      return stored.map(({ jobId, pages, amountCents, status, createdAt }) => ({ jobId, pages, amountCents, status, createdAt }));
    },
  };
}
