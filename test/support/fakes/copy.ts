/** Stores hand out copies, as a database does: a caller mutating a record never changes the store. */
export const copy = <T>(value: T): T => structuredClone(value);

/** Copies of the records these ids name, by id (each id once; a missing one is left out), as a batch read answers. */
export function copiesOf<T>(records: ReadonlyMap<string, T>, ids: readonly string[]): Map<string, T> {
  const found = new Map<string, T>();
  for (const id of new Set(ids)) {
    const record = records.get(id);
    if (record) found.set(id, copy(record));
  }
  return found;
}
