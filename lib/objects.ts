/**
 * The Objects port: one bucket's objects and presigned URLs (S3 on AWS, s3rver locally; the same
 * adapter serves both). Domain code names keys; the adapter knows the bucket.
 */
export interface ObjectInfo {
  size: number;
  contentType: string | undefined;
  /** ISO time the object was stored. */
  lastModified: string;
  /** The stored bytes' entity tag, as S3 quotes it: what a copy can be held to (`copyIfUnchanged`). */
  eTag: string;
}

/** A browser-style POST upload: send `fields` then the file as multipart form data to `url`. */
export interface PresignedPost {
  url: string;
  fields: Record<string, string>;
}

export interface UploadRules {
  contentType: string;
  /** The object must be exactly within these bytes (S3 enforces content-length-range). */
  minBytes: number;
  maxBytes: number;
  expiresInSeconds: number;
}

export interface StoredHeaders {
  contentEncoding?: string;
  contentDisposition?: string;
  cacheControl?: string;
}

export interface StoredObject {
  key: string;
  size: number;
  lastModified: string;
}

export interface Objects {
  /** Stores the object with the headers it is served with (through a presigned or distribution URL alike). */
  put(key: string, body: Uint8Array | string, contentType: string, headers?: StoredHeaders): Promise<void>;
  /** The object as UTF-8 text; undefined when there is no such object. */
  getText(key: string): Promise<string | undefined>;
  /** The object's bytes; undefined when there is no such object. */
  getBytes(key: string): Promise<Uint8Array | undefined>;
  /** Every object whose key starts with `prefix`, in key order. */
  list(prefix: string): Promise<StoredObject[]>;
  /**
   * One page of that listing: up to `max` objects (at most 1,000, one ListObjectsV2) whose keys come
   * after `after` in key order; `more` when the listing goes on past the page.
   */
  listPage(prefix: string, after: string | undefined, max: number): Promise<{ objects: StoredObject[]; more: boolean }>;
  /** Removes the objects (missing ones are not an error); returns how many keys were asked for. */
  deleteMany(keys: readonly string[]): Promise<number>;
  /** Size and type of a stored object; undefined when there is no such object. */
  head(key: string): Promise<ObjectInfo | undefined>;
  /** Removes the object; removing a missing object is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Copies `from` to `to`, object and stored headers, only if `from` still has the entity tag `eTag`
   * (S3 checks it as it copies: CopyObject's `x-amz-copy-source-if-match`); false, copying nothing,
   * when it has another or is gone.
   */
  copyIfUnchanged(from: string, to: string, eTag: string): Promise<boolean>;
  presignGet(key: string, expiresInSeconds: number, options?: { contentDisposition?: string; contentType?: string }): Promise<string>;
  /**
   * GET URLs for many keys that share `prefix`, valid `expiresInSeconds`, in the order given: one
   * grant for them all where the adapter can (a CloudFront policy for the prefix), else one
   * signature each. Every key must start with `prefix`; the objects answer with their stored type.
   */
  presignGetAll(prefix: string, keys: readonly string[], expiresInSeconds: number): Promise<string[]>;
  presignPost(key: string, rules: UploadRules): Promise<PresignedPost>;
}

/** The keys, checked to lie under `prefix` (a grant for the prefix must never be asked for another key). */
export function keysUnder(prefix: string, keys: readonly string[]): readonly string[] {
  const stray = keys.find((key) => !key.startsWith(prefix));
  if (stray !== undefined) throw new Error(`Key ${stray} is not under ${prefix}`);
  return keys;
}

/** The order a bucket lists its keys in: by their UTF-8 bytes (not JavaScript's UTF-16 order). */
export const listingOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** A page of `listPage` cut from a whole listing in key order (the in-memory stand-ins' listPage). */
export function pageAfter(listing: readonly StoredObject[], after: string | undefined, max: number): { objects: StoredObject[]; more: boolean } {
  const rest = after === undefined ? listing : listing.filter((o) => listingOrder(o.key, after) > 0);
  return { objects: rest.slice(0, max), more: rest.length > max };
}
