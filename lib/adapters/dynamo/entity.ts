import type { Key } from './keys.ts';

/**
 * Every record type of the single table, as its items' `entity` attribute (docs/data-model.md,
 * "Records"). One list, so a misspelt name fails to compile.
 */
export const entityNames = [
  'User',
  'Subscription',
  'CreatorSubscription',
  'UsagePeriod',
  'Inbox',
  'Notification',
  'DeviceToken',
  'Book',
  'Line',
  'BookImport',
  'File',
  'BookText',
  'BookTextPage',
  'PageReread',
  'PageEdit',
  'LooseText',
  'OcrJob',
  'Upload',
  'UsageLog',
  'OwedUsage',
  'Invoice',
  'PushRecord',
  'Announcement',
  'AnnouncementShard',
  'StripeEvent',
  'AudioJob',
  'AudioJobChunk',
  'AudioFiles',
] as const;
export type EntityName = (typeof entityNames)[number];

/** The attributes of the secondary indexes (schema.ts) an item carries, derived from its record. */
export type IndexAttributes = Record<string, string>;

export interface EntityDeclaration<R, I extends IndexAttributes> {
  key: (record: R) => Key;
  /** Absent for an entity in no secondary index. */
  indexes?: (record: R) => I;
  /**
   * The index attributes each field moves when an update changes it; every other index attribute
   * is derived from fields fixed at creation.
   */
  movedBy?: { [F in keyof R]?: readonly NoInfer<keyof I & string>[] };
}

export interface Entity<N extends EntityName, R, I extends IndexAttributes> {
  readonly name: N;
  key(record: R): Key;
  indexes(record: R): I;
  /** The stored item: keys, index attributes, entity name, then the record. */
  item(record: R): Key & I & { entity: N } & R & Record<string, unknown>;
  /** The index attributes an update of `field` sets, from the updated record, as `item` derives them. */
  moved(record: R, field: keyof R): Partial<I>;
}

/** Declares an entity once (in the manner of ElectroDB, without its weight at cold start). */
export function entity<N extends EntityName, R, I extends IndexAttributes = Record<never, string>>(
  name: N,
  declaration: EntityDeclaration<R, I>,
): Entity<N, R, I> {
  const { key, indexes = () => ({}) as I, movedBy = {} } = declaration;
  return {
    name,
    key,
    indexes,
    item: (record) => ({ ...key(record), ...indexes(record), entity: name, ...record }),
    moved(record, field) {
      const all = indexes(record);
      const names: readonly (keyof I & string)[] = (movedBy as Partial<Record<keyof R, readonly (keyof I & string)[]>>)[field] ?? [];
      return Object.fromEntries(names.map((attribute) => [attribute, all[attribute]])) as Partial<I>;
    },
  };
}
