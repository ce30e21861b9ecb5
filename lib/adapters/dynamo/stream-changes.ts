import type { AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { logger } from '../../log.ts';
import { maxPageNumber } from '../../ocr/pages/page.ts';
import type { IndexChange } from '../../search/indexing.ts';
import { entities } from './entities.ts';

/**
 * The table's stream records (DynamoDB Streams, as Lambda hands them to a function: the AttributeValue
 * form) as changes of the search index (lib/search/indexing.ts). A change only names what changed; the
 * indexer reads the record itself, so nothing of an image is used but the names and the fields compared.
 */

/** The items the search indexer is given (the stream trigger's filter on `entity`, infra/search.ts; the local poller's). */
export const indexedEntities = [entities.bookText.name, entities.bookTextPage.name] as const;

/** What a BookText's index entries carry (lib/search/engine.ts, IndexedBookFields): a change of one of these moves its pages. */
const indexedBookFields = ['userId', 'visibility', 'status', 'language'] as const;
/** What its catalogue listing entry carries besides (lib/search/indexing.ts indexedBook: filters and sort keys). */
const listingFields = ['tags', 'categories', 'fileName', 'pageCount', 'createdAt'] as const;

type Image = Record<string, unknown>;
type Raw = NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']>;

/** The attributes of an image that decoding reads, unmarshalled; other attributes (a page's text, metadata) are never converted. */
function picked(image: Raw | undefined, names: readonly string[]): Image | undefined {
  if (image === undefined || image === null) return undefined;
  if (typeof image !== 'object' || Array.isArray(image)) throw new TypeError('an image that is not a map');
  const chosen: Record<string, SdkAttributeValue> = {};
  for (const name of names) {
    if (Object.hasOwn(image, name)) chosen[name] = image[name] as SdkAttributeValue;
  }
  return unmarshall(chosen, { wrapNumbers: false });
}

const attributes = ['entity', 'bookTextId', 'pageNumber', ...indexedBookFields, ...listingFields] as const;

const isIndexed = (entity: unknown): entity is (typeof indexedEntities)[number] => (indexedEntities as readonly unknown[]).includes(entity);

/** Why a record is not understood (a message for the logs: names and types, never values). */
class Malformed extends Error {}

function bookTextIdOf(image: Image): string {
  const id = image.bookTextId;
  if (typeof id !== 'string' || id === '') throw new Malformed('no bookTextId');
  return id;
}

function pageOf(image: Image): IndexChange {
  const pageNumber = image.pageNumber;
  if (typeof pageNumber !== 'number' || !Number.isInteger(pageNumber) || pageNumber < 0 || pageNumber > maxPageNumber) {
    throw new Malformed('no page number in range');
  }
  return { kind: 'page', bookTextId: bookTextIdOf(image), pageNumber };
}

const differ = (names: readonly string[], before: Image, after: Image): boolean =>
  names.some((name) => JSON.stringify(before[name] ?? null) !== JSON.stringify(after[name] ?? null));

/**
 * The change a record names, or null for none:
 * - a BookTextPage inserted, modified or removed: that page;
 * - a BookText inserted or removed, or modified in a field its index entries carry (owner, visibility,
 *   status, language): that book; modified only in a field of its catalogue listing (tags, categories,
 *   name, page count): that book's listing. Other modifications of a BookText (progress, text) change
 *   nothing the index holds;
 * - any other item: none.
 * Throws Malformed for an indexed item it cannot read (an image not a map, an attribute missing or of
 * the wrong type); decodeStreamRecords logs and skips those.
 */
function decode(record: DynamoDBRecord): IndexChange | null {
  const stream = record.dynamodb;
  if (!stream || typeof stream !== 'object') throw new Malformed('no dynamodb record');
  let before: Image | undefined;
  let after: Image | undefined;
  try {
    before = picked(stream.OldImage, attributes);
    after = picked(stream.NewImage, attributes);
  } catch (error) {
    throw new Malformed(`an image that does not unmarshall (${(error as Error).name})`);
  }
  // As the trigger's filter: the item's entity after the change or, for a removal, before it.
  const image = isIndexed(after?.entity) ? after! : isIndexed(before?.entity) ? before! : undefined;
  if (!image) return null;
  const name = record.eventName;
  if (name !== 'INSERT' && name !== 'MODIFY' && name !== 'REMOVE') throw new Malformed('an unknown eventName');

  if (image.entity === entities.bookTextPage.name) return pageOf(image);
  const bookTextId = bookTextIdOf(image);
  if (name === 'MODIFY' && before && after && isIndexed(before.entity) && isIndexed(after.entity)) {
    // Both images are needed to tell; a stream without them (another view type) names the book.
    if (differ(indexedBookFields, before, after)) return { kind: 'bookText', bookTextId };
    return differ(listingFields, before, after) ? { kind: 'bookText', bookTextId, listingOnly: true } : null;
  }
  return { kind: 'bookText', bookTextId };
}

/** Logs a record that is ignored: its event's name and id and why, never an attribute's value. */
export type IgnoredRecord = (reason: string, record: { eventName?: string; eventID?: string; sequenceNumber?: string }) => void;

const warnIgnored: IgnoredRecord = (reason, record) => logger.warn('Stream record ignored', { reason, ...record });

/** The changes that stream records name, in record order; an unreadable record is logged and skipped, never thrown. */
export function decodeStreamRecords(records: readonly DynamoDBRecord[], ignored: IgnoredRecord = warnIgnored): IndexChange[] {
  const changes: IndexChange[] = [];
  for (const record of records) {
    try {
      const change = decode(record);
      if (change) changes.push(change);
    } catch (error) {
      const safe = (value: unknown) => (typeof value === 'string' ? value.slice(0, 100) : undefined);
      ignored(error instanceof Malformed ? error.message : `decoding failed (${(error as Error)?.name ?? typeof error})`, {
        eventName: safe(record?.eventName),
        eventID: safe(record?.eventID),
        sequenceNumber: safe(record?.dynamodb?.SequenceNumber),
      });
    }
  }
  return changes;
}

/**
 * The stream trigger's filter (infra/search.ts, `triggerIndexer`) as Lambda applies it, for the local
 * stand-in of the trigger: the item's `entity` (a string) after the change or before it is indexed.
 */
export function passesIndexerFilter(record: DynamoDBRecord): boolean {
  const entityOf = (image: Raw | undefined) => (image && typeof image === 'object' ? (image.entity as { S?: unknown } | undefined)?.S : undefined);
  return [entityOf(record.dynamodb?.NewImage), entityOf(record.dynamodb?.OldImage)].some(isIndexed);
}
