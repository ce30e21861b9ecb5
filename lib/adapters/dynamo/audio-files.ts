import { createHash } from 'node:crypto';
import { GetCommand, paginateQuery, UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { AudioFiles } from '../../audio/audio-files.ts';
import { parseAudioKey } from '../../audio/audio-key.ts';
import { voiceIds } from '../../audio/voices.ts';
import type { StoredObject } from '../../objects.ts';
import { batchDelete } from './books.ts';
import { entities } from './entities.ts';
import { keys, type Key } from './keys.ts';
import type { Db } from './table.ts';

/**
 * A book's audio files in one voice are one partition of 256 items (keys.ts, "Audio files"), each
 * line's files in the item its id hashes to. A listing then reads a few hundred items however long
 * the book, not one per line: DynamoDB bills a Query by its bytes, but DynamoDB Local spends its
 * time per item and per attribute (one voice of a 6,236-line book: 6,236 items of maps about a
 * second, 256 items of strings about 0.2 s). Each file is an attribute named by its key after
 * `<bookId>/` (never a key attribute's name, as it holds a '/') whose value is `<size> <time>`, so
 * concurrent writers of one item each set their own attribute. An item holds about 3,400 files
 * within DynamoDB's 400 KB: a book of up to about 290,000 lines (docs/decisions.md, "Maxima and caps").
 */
const fileValue = (file: StoredObject) => `${file.size} ${file.lastModified}`;
function fromValue(key: string, value: unknown): StoredObject {
  const [size, lastModified] = String(value).split(' ');
  return { key, size: Number(size), lastModified: lastModified ?? '' };
}

/** Item writes in flight at once when many files are recorded (a backfill, a bench). */
const writesInFlight = 8;

interface Located {
  item: Key;
  name: string;
  file: StoredObject;
}

/** The shard of a line, one of 256: two hex digits of a hash of its id, so any book's lines spread evenly. */
export const shardOf = (lineId: string): string => createHash('sha256').update(lineId).digest('hex').slice(0, 2);

function locate(file: StoredObject): Located | undefined {
  const parts = parseAudioKey(file.key);
  if (!parts) return undefined;
  return { item: keys.audioFiles(parts.bookId, parts.voice, shardOf(parts.lineId)), name: file.key.slice(parts.bookId.length + 1), file };
}

/**
 * Attributes one UpdateItem sets or removes: DynamoDB caps an update expression at 4 KB, and
 * `#f123 = :f123, ` is 16 characters.
 */
const filesPerUpdate = 100;

/** The files grouped by item, in the order first met, at most `filesPerUpdate` a group. */
function byItem(files: readonly StoredObject[]): Located[][] {
  const groups = new Map<string, Located[]>();
  for (const file of files) {
    const at = locate(file);
    if (!at) continue;
    const id = `${at.item.pk}\u0000${at.item.sk}`;
    const group = groups.get(id) ?? [];
    group.push(at);
    groups.set(id, group);
  }
  return [...groups.values()].flatMap((group) => Array.from({ length: Math.ceil(group.length / filesPerUpdate) }, (_, i) => group.slice(i * filesPerUpdate, (i + 1) * filesPerUpdate)));
}

async function inBatches<T>(items: readonly T[], run: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += writesInFlight) await Promise.all(items.slice(i, i + writesInFlight).map(run));
}

const isFileName = (name: string) => name.includes('/');

export function dynamoAudioFiles(db: Db): AudioFiles {
  const TableName = db.tableName;
  const names = (group: Located[]) => Object.fromEntries(group.map((at, i) => [`#f${i}`, at.name]));

  /** The items of the voice's partition, or of every voice's (read at once). */
  async function items(bookId: string, voice: string | undefined, projection?: Partial<QueryCommandInput>) {
    const partition = async (v: string) => {
      const found: Record<string, unknown>[] = [];
      const input: QueryCommandInput = {
        TableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.audioFilesPartition(bookId, v) },
        ...projection,
      };
      for await (const page of paginateQuery({ client: db.client }, input)) found.push(...((page.Items ?? []) as Record<string, unknown>[]));
      return found;
    };
    return (await Promise.all((voice === undefined ? voiceIds : [voice]).map(partition))).flat();
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
              ':entity': entities.audioFiles.name,
              ...Object.fromEntries(group.map((at, i) => [`:f${i}`, fileValue(at.file)])),
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
      await batchDelete(db, (await items(bookId, undefined, { ProjectionExpression: 'pk, sk' })) as Key[]);
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
      for (const item of await items(bookId, voice)) {
        for (const [name, value] of Object.entries(item)) if (isFileName(name)) files.push(fromValue(`${bookId}/${name}`, value));
      }
      // The bucket lists in key order: by line, field, then voice.
      return files.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
  };
}
