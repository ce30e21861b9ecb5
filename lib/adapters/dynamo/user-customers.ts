import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { UserCustomers } from '../../billing/billing.ts';
import { keys } from './keys.ts';
import { ifConditionHolds, type Db } from './table.ts';

/**
 * The user's Stripe customer, on the user record: `stripeCustomerId` and, beside it, the `created`
 * of the Stripe event it came from. An update of those two attributes only, so it never races a
 * write of the rest of the profile, and conditional, so a redelivered or late event never replaces
 * a customer that a newer event stored. A customer stored without an event (the local seed) counts
 * as older than any event.
 */
export function dynamoUserCustomers(db: Db): UserCustomers {
  return {
    link: (userId, customerId, eventCreated, { onlyIfNone }) =>
      ifConditionHolds(() =>
        db.client.send(
          new UpdateCommand({
            TableName: db.tableName,
            Key: keys.user(userId),
            UpdateExpression: 'SET stripeCustomerId = :customer, stripeCustomerEventCreated = :created',
            // attribute_exists: never makes a user record of its own.
            ConditionExpression: onlyIfNone
              ? 'attribute_exists(pk) AND attribute_not_exists(stripeCustomerId)'
              : 'attribute_exists(pk) AND (attribute_not_exists(stripeCustomerEventCreated) OR stripeCustomerEventCreated <= :created)',
            ExpressionAttributeValues: { ':customer': customerId, ':created': eventCreated },
          }),
        ),
      ),
  };
}
