import { GetCommand, paginateQuery, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Notification } from '../../notifications/notification.ts';
import type { InboxCounters, NewNotification, NotificationStore } from '../../notifications/store.ts';
import { entities } from './entities.ts';
import { keys, padSeq } from './keys.ts';
import { policies, retry } from '../../retry.ts';
import { batchGet, failedConditions, isContention, queryAll, record, type Db } from './table.ts';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';

/** Inbox writes race other writes to the same counter. */
const inboxContention = { ...policies.contention, attempts: 12 };
/** A transaction takes 100 actions; one is kept for the inbox counter. */
const readAllBatch = 99;
/** Notifications stored by one transaction: a counter update and a put each. */
const manyPerTransaction = 50;

export function dynamoNotificationStore(db: Db): NotificationStore {
  const TableName = db.tableName;

  const counters = async (recipientId: string, consistent = false): Promise<InboxCounters> => {
    const { Item } = await db.client.send(
      new GetCommand({ TableName, Key: keys.inbox(recipientId), ConsistentRead: consistent }),
    );
    return { total: Number(Item?.total ?? 0), unread: Number(Item?.unread ?? 0) };
  };

  const get = async (recipientId: string, notificationId: string) => {
    const { Item } = await db.client.send(
      new GetCommand({ TableName, Key: keys.notification(recipientId, notificationId), ConsistentRead: true }),
    );
    return Item ? record<Notification>(Item) : undefined;
  };

  /**
   * The two actions that store a notification at position `total + 1`: the inbox counter moves only
   * from the total read, and the notification's id must be new.
   */
  const stored = (input: NewNotification, total: number) => {
    const seq = total + 1;
    const notification: Notification = { ...input, readAt: input.readAt ?? null, seq, version: 0, updatedAt: input.createdAt };
    const actions = [
      {
        Update: {
          TableName,
          Key: keys.inbox(input.recipientId),
          UpdateExpression: 'SET #total = :seq, entity = :entity, recipientId = :recipient ADD unread :unread',
          ConditionExpression: total === 0 ? 'attribute_not_exists(#total)' : '#total = :previous',
          ExpressionAttributeNames: { '#total': 'total' },
          ExpressionAttributeValues: {
            ':seq': seq,
            ':entity': entities.inbox.name,
            ':recipient': input.recipientId,
            ':unread': notification.isRead ? 0 : 1,
            ...(total === 0 ? {} : { ':previous': total }),
          },
        },
      },
      { Put: { TableName, Item: entities.notification.item(notification), ConditionExpression: 'attribute_not_exists(pk)' } },
    ];
    return { notification, actions };
  };

  /**
   * Optimistic: the inbox counter only moves from the total just read, in the same transaction
   * that writes the notification, so positions have no gaps and no duplicates under concurrency.
   */
  const create = (input: NewNotification) =>
    retry(
      async () => {
        const { total } = await counters(input.recipientId, true);
        const { notification, actions } = stored(input, total);
        await db.client.send(new TransactWriteCommand({ TransactItems: actions }));
        return { notification, created: true };
      },
      {
        ...inboxContention,
        // A notification of this id is there already (its Put's condition failed): nothing to retry.
        retryable: (error) => isContention(error) && !failedConditions(error)?.includes(1),
        gaveUp: 'Inbox is too busy: could not store the notification',
      },
    ).catch(async (error: unknown) => {
      if (!failedConditions(error)?.includes(1)) throw error;
      const existing = await get(input.recipientId, input.notificationId);
      if (!existing) throw error;
      return { notification: existing, created: false };
    });

  return {
    counters: (recipientId) => counters(recipientId),
    create,

    /**
     * Many recipients' notifications, 50 to a transaction (its 100 actions: a counter and a put each)
     * after one consistent batch read of their counters. A transaction refused (a notification already
     * there, a counter moved meanwhile, an inbox written before its counter named its recipient) is
     * made one by one instead, each as `create` does.
     */
    async createMany(inputs) {
      const created: Notification[] = [];
      for (let i = 0; i < inputs.length; i += manyPerTransaction) {
        const chunk = inputs.slice(i, i + manyPerTransaction);
        const inboxes = await batchGet<{ recipientId?: string; total?: number }>(db, chunk.map((n) => keys.inbox(n.recipientId)), true);
        const totals = new Map(inboxes.flatMap((inbox) => (inbox.recipientId ? [[inbox.recipientId, Number(inbox.total ?? 0)] as const] : [])));
        const writes = chunk.map((input) => stored(input, totals.get(input.recipientId) ?? 0));
        try {
          await db.client.send(new TransactWriteCommand({ TransactItems: writes.flatMap((w) => w.actions) }));
          created.push(...writes.map((w) => w.notification));
        } catch (error) {
          if (!(error instanceof TransactionCanceledException)) throw error;
          // Most often a page run again: the ones already there are left out at the cost of one read.
          const there = await batchGet<{ notificationId: string }>(db, chunk.map((n) => keys.notification(n.recipientId, n.notificationId)), true);
          const known = new Set(there.map((n) => n.notificationId));
          for (const input of chunk.filter((n) => !known.has(n.notificationId))) {
            const one = await create(input);
            if (one.created) created.push(one.notification);
          }
        }
      }
      return created;
    },

    range: (recipientId, fromSeq, toSeq) =>
      queryAll<Notification>(db, {
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': keys.inboxIndex(recipientId), ':from': padSeq(fromSeq), ':to': padSeq(toSeq) },
        ScanIndexForward: false,
      }),

    async markRead(recipientId, notificationId, readAt) {
      const send = () =>
        db.client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Update: readUpdate(TableName, recipientId, notificationId, readAt) },
              { Update: unreadDecrement(TableName, recipientId, 1) },
            ],
          }),
        );
      // Retried while canceled with no failed condition (a collision). A failed condition means missing,
      // or already read: nothing to count down. Still colliding after the last attempt is a failure, not a
      // notification answered unread as if it had been marked.
      await retry(send, {
        ...inboxContention,
        retryable: (error) => failedConditions(error)?.length === 0,
        gaveUp: 'Inbox is too busy: could not mark the notification read',
      }).catch((error: unknown) => {
        if (!failedConditions(error)?.length) throw error;
      });
      return get(recipientId, notificationId);
    },

    async markAllRead(recipientId, readAt) {
      let changed = 0;
      const unreadPages = paginateQuery(
        { client: db.client, pageSize: readAllBatch },
        {
          TableName,
          IndexName: 'gsi2',
          KeyConditionExpression: 'gsi2pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.unreadIndex(recipientId) },
          ProjectionExpression: 'notificationId',
        },
      );
      for await (const page of unreadPages) {
        let ids = (page.Items ?? []).map((item) => String(item.notificationId));
        if (ids.length === 0) continue;
        // The index lags the table: an entry may already be read. Drop those and commit the rest.
        const commit = async () => {
          try {
            await db.client.send(
              new TransactWriteCommand({
                TransactItems: [
                  ...ids.map((id) => ({ Update: readUpdate(TableName, recipientId, id, readAt) })),
                  { Update: unreadDecrement(TableName, recipientId, ids.length) },
                ],
              }),
            );
            changed += ids.length;
          } catch (error) {
            const failed = failedConditions(error);
            ids = failed ? ids.filter((_, i) => !failed.includes(i)) : ids;
            if (ids.length > 0) throw error;
          }
        };
        await retry(commit, {
          ...inboxContention,
          retryable: (error) => failedConditions(error) !== undefined,
          gaveUp: 'Inbox is too busy: could not mark notifications read',
        });
      }
      return changed;
    },
  };
}

function readUpdate(TableName: string, recipientId: string, notificationId: string, readAt: string) {
  return {
    TableName,
    Key: keys.notification(recipientId, notificationId),
    UpdateExpression: 'SET isRead = :true, readAt = :at, updatedAt = :at ADD version :one REMOVE gsi2pk, gsi2sk',
    ConditionExpression: 'attribute_exists(pk) AND isRead = :false',
    ExpressionAttributeValues: { ':true': true, ':false': false, ':at': readAt, ':one': 1 },
  };
}

function unreadDecrement(TableName: string, recipientId: string, by: number) {
  return {
    TableName,
    Key: keys.inbox(recipientId),
    UpdateExpression: 'ADD unread :minus',
    ExpressionAttributeValues: { ':minus': -by },
  };
}
