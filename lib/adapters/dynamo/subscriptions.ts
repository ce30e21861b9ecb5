import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { CreatorSubscription, Subscription, SubscriptionStore } from '../../billing/subscriptions.ts';
import { keys } from './keys.ts';
import { ifConditionHolds, record, type Db } from './table.ts';

export function dynamoSubscriptionStore(db: Db): SubscriptionStore {
  const TableName = db.tableName;
  const get = async <T>(key: { pk: string; sk: string }) => {
    const { Item } = await db.client.send(new GetCommand({ TableName, Key: key, ConsistentRead: true }));
    return Item ? record<T>(Item) : undefined;
  };
  const put = async (key: { pk: string; sk: string }, entity: string, value: object) => {
    await db.client.send(new PutCommand({ TableName, Item: { ...key, entity, ...value } }));
  };
  return {
    get: (userId) => get<Subscription>(keys.subscription(userId)),
    put: (s) => put(keys.subscription(s.userId), 'Subscription', s),
    putIfNewer: (s) =>
      ifConditionHolds(() =>
        db.client.send(
          new PutCommand({
            TableName,
            Item: { ...keys.subscription(s.userId), entity: 'Subscription', ...s },
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
    putCreatorSubscription: (s) => put(keys.creatorSubscription(s.userId, s.creatorId), 'CreatorSubscription', s),
    async pagesUsed(userId, periodStart) {
      const usage = await get<{ pagesUsed?: number }>(keys.usagePeriod(userId, periodStart));
      return usage?.pagesUsed ?? 0;
    },
    setPagesUsed: (userId, periodStart, pages) =>
      put(keys.usagePeriod(userId, periodStart), 'UsagePeriod', { userId, periodStart, pagesUsed: pages }),
  };
}
