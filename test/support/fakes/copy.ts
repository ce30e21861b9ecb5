/** Stores hand out copies, as a database does: a caller mutating a record never changes the store. */
export const copy = <T>(value: T): T => structuredClone(value);
