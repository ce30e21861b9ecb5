import { GetCommand, paginateQuery, UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { AudioFiles } from '../../audio/audio-files.ts';
import { parseAudioKey } from '../../audio/audio-key.ts';
import type { StoredObject } from '../../objects.ts';
import { batchDelete } from './books.ts';
import { keys, type Key } from './keys.ts';
import type { Db } from './table.ts';

/**
 * A line's audio files in one voice are one item (keys.ts, "Audio files"): a 6,236-line book is
 * 6,236 items a voice rather than 18,708, so lines-with-audio reads a third of the items. Each file
 * is an attribute named by the key's end (`<field>/<voice>_<hash>.mp3`, never a key attribute's
 * name, as it holds a '/'), so concurrent writers of one line each set their own attribute.
 */
type FileValue = { size: number; lastModified: string };

/** Item writes in flight at once when many files are recorded (a backfill, a bench). */
const writesInFlight = 8;

interface Located {
  item: Key;
  name: string;
  file: StoredObject;
}

function locate(file: StoredObject): Located | undefined {
  const parts = parseAudioKey(file.key);
  if (!parts) return undefined;
  return { item: keys.audioFiles(parts.bookId, parts.voice, parts.lineId), name: file.key.slice(parts.bookId.length + parts.lineId.length + 2), file };
}

/** The files grouped by item, in the order first met. */
function byItem(files: readonly StoredObject[]): Located[][] {
  const groups = new Map<string, Located[]>();
  for (const file of files) {
    const at = locate(file);
    if (!at) continue;
    const id = `${at.item.pk}\u0000${at.item.sk}`;
    groups.set(id, [...(groups.get(id) ?? []), at]);
  }
  return [...groups.values()];
}

async function inBatches<T>(items: readonly T[], run: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += writesInFlight) await Promise.all(items.slice(i, i + writesInFlight).map(run));
}

const isFileName = (name: string) => name.includes('/');

export function dynamoAudioFiles(db: Db): AudioFiles {
  const TableName = db.tableName;
  const names = (group: Located[]) => Object.fromEntries(group.map((at, i) => [`#f${i}`, at.name]));

  async function* items(bookId: string, voice: string | undefined, projection?: Partial<QueryCommandInput>) {
    const input: QueryCommandInput = {
      TableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.book(bookId).pk, ':prefix': keys.audioFilesPrefix(voice) },
      ...projection,
    };
    for await (const page of paginateQuery({ client: db.client }, input)) yield* (page.Items ?? []) as Record<string, unknown>[];
  }

  return {
    async record(files) {
      await inBatches(byItem(files), (group) =>
        db.client.send(
          new UpdateCommand({
            TableName,
            Key: group[0]!.item,
            UpdateExpression: `SET entity = :entity, ${group.map((_, i) => `#f${i} = :f${i}`).join(', ')}`,
            ExpressionAttributeNames: names(group),
            ExpressionAttributeValues: {
              ':entity': 'AudioFiles',
              ...Object.fromEntries(group.map((at, i) => [`:f${i}`, { size: at.file.size, lastModified: at.file.lastModified } satisfies FileValue])),
            },
          }),
        ),
      );
    },

    async forget(storageKeys) {
      const files = storageKeys.map((key) => ({ key, size: 0, lastModified: '' }));
      await inBatches(byItem(files), (group) =>
        db.client.send(
          new UpdateCommand({
            TableName,
            Key: group[0]!.item,
            UpdateExpression: `REMOVE ${group.map((_, i) => `#f${i}`).join(', ')}`,
            ExpressionAttributeNames: names(group),
            // Forgetting never creates an item.
            ConditionExpression: 'attribute_exists(pk)',
          }),
        ).catch((error: unknown) => {
          if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
        }),
      );
    },

    async forgetBook(bookId) {
      const found: Key[] = [];
      for await (const item of items(bookId, undefined, { ProjectionExpression: 'pk, sk' })) found.push(item as Key);
      await batchDelete(db, found);
    },

    async has(storageKey) {
      const at = locate({ key: storageKey, size: 0, lastModified: '' });
      if (!at) return false;
      const { Item } = await db.client.send(
        new GetCommand({ TableName, Key: at.item, ProjectionExpression: '#f', ExpressionAttributeNames: { '#f': at.name }, ConsistentRead: true }),
      );
      return Item?.[at.name] !== undefined;
    },

    async ofBook(bookId, voice) {
      const files: StoredObject[] = [];
      for await (const item of items(bookId, voice)) {
        const lineId = String(item.sk).slice(String(item.sk).indexOf('#', 'AUDIO#'.length) + 1);
        for (const [name, value] of Object.entries(item)) {
          if (isFileName(name)) files.push({ key: `${bookId}/${lineId}/${name}`, ...(value as FileValue) });
        }
      }
      // The bucket lists in key order: by line, field, then voice.
      return files.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
  };
}
