import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { CreatorSubscription, Subscription, SubscriptionStore } from '../../billing/subscriptions.ts';
import { entities } from './entities.ts';
import { keys } from './keys.ts';
import { ifConditionHolds, record, type Db } from './table.ts';

export function dynamoSubscriptionStore(db: Db): SubscriptionStore {
  const TableName = db.tableName;
  const get = async <T>(key: { pk: string; sk: string }) => {
    const { Item } = await db.client.send(new GetCommand({ TableName, Key: key, ConsistentRead: true }));
    return Item ? record<T>(Item) : undefined;
  };
  const put = async (Item: Record<string, unknown>) => {
    await db.client.send(new PutCommand({ TableName, Item }));
  };
  return {
    get: (userId) => get<Subscription>(keys.subscription(userId)),
    put: (s) => put(entities.subscription.item(s)),
    putIfNewer: (s) =>
      ifConditionHolds(() =>
        db.client.send(
          new PutCommand({
            TableName,
            Item: entities.subscription.item(s),
            // No record, or one never written from Stripe (seeded), also counts as older. An ending
            // subscription never overwrites another one that is active (a user who switched plans).
            ConditionExpression:
              '(attribute_not_exists(stripeEventCreated) OR stripeEventCreated <= :created) AND ' +
              '(:status = :active OR attribute_not_exists(stripeSubscriptionId) OR stripeSubscriptionId = :sub OR #status <> :active)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':created': s.stripeEventCreated,
              ':status': s.status,
              ':active': 'active',
              ':sub': s.stripeSubscriptionId ?? null,
            },
          }),
        ),
      ),
    getCreatorSubscription: (userId, creatorId) => get<CreatorSubscription>(keys.creatorSubscription(userId, creatorId)),
    putCreatorSubscription: (s) => put(entities.creatorSubscription.item(s)),
    async pagesUsed(userId, periodStart) {
      const usage = await get<{ pagesUsed?: number }>(keys.usagePeriod(userId, periodStart));
      return usage?.pagesUsed ?? 0;
    },
    setPagesUsed: (userId, periodStart, pages) =>
      put(entities.usagePeriod.item({ userId, periodStart, pagesUsed: pages })),
  };
}
