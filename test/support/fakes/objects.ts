import { createHash } from 'node:crypto';
import { keysUnder, listingOrder, pageAfter, type ObjectInfo, type Objects, type PresignedPost, type StoredHeaders, type StoredObject, type UploadRules } from '../../../lib/objects.ts';

export interface FakeObject {
  body: Uint8Array;
  contentType: string;
  headers: StoredHeaders;
  lastModified: string;
}

/** S3's ETag of an object stored in one request: its MD5, quoted. */
const eTagOf = (body: Uint8Array) => `"${createHash('md5').update(body).digest('hex')}"`;

/** The folders a key sits under: `a/`, `a/b/`, ... */
const foldersOf = (key: string): string[] => {
  const folders: string[] = [];
  for (let i = key.indexOf('/'); i >= 0; i = key.indexOf('/', i + 1)) folders.push(key.slice(0, i + 1));
  return folders;
};

/**
 * Objects in memory (lib/adapters/s3/objects.ts): one bucket; URLs name the key and never expire. Tests
 * and benchmarks share it (bench/audio-job.ts stores a whole book's audio in it).
 */
export class FakeObjects implements Objects {
  readonly objects = new Map<string, FakeObject>();
  /** PUTs per key: a benchmark tells a regenerated file from one written once. */
  readonly puts = new Map<string, number>();
  /** Keys by every folder they sit under, so a listing does not scan the bucket. */
  private readonly folders = new Map<string, Set<string>>();

  constructor(
    readonly baseUrl = 'https://objects.test',
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The stored text of a key, for assertions; undefined when absent. */
  text(key: string): string | undefined {
    const found = this.objects.get(key);
    return found && new TextDecoder().decode(found.body);
  }

  keys(prefix = ''): string[] {
    const folder = prefix.slice(0, prefix.lastIndexOf('/') + 1);
    const candidates = folder === '' ? this.objects.keys() : (this.folders.get(folder) ?? []);
    return [...candidates].filter((key) => key.startsWith(prefix)).sort(listingOrder);
  }

  private store(key: string, object: FakeObject) {
    this.objects.set(key, object);
    for (const folder of foldersOf(key)) {
      const keys = this.folders.get(folder) ?? new Set<string>();
      keys.add(key);
      this.folders.set(folder, keys);
    }
  }

  async put(key: string, body: Uint8Array | string, contentType: string, headers: StoredHeaders = {}) {
    this.puts.set(key, (this.puts.get(key) ?? 0) + 1);
    const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : new Uint8Array(body);
    this.store(key, { body: bytes, contentType, headers: { ...headers }, lastModified: this.clock().toISOString() });
  }

  async getText(key: string) {
    return this.text(key);
  }

  async getBytes(key: string) {
    const found = this.objects.get(key);
    return found && new Uint8Array(found.body);
  }

  async list(prefix: string): Promise<StoredObject[]> {
    return this.keys(prefix).map((key) => {
      const found = this.objects.get(key)!;
      return { key, size: found.body.byteLength, lastModified: found.lastModified };
    });
  }

  async listPage(prefix: string, after: string | undefined, max: number) {
    return pageAfter(await this.list(prefix), after, max);
  }

  async deleteMany(keys: readonly string[]) {
    for (const key of keys) this.remove(key);
    return keys.length;
  }

  async head(key: string): Promise<ObjectInfo | undefined> {
    const found = this.objects.get(key);
    return found && { size: found.body.byteLength, contentType: found.contentType, lastModified: found.lastModified, eTag: eTagOf(found.body) };
  }

  private remove(key: string) {
    if (!this.objects.delete(key)) return;
    for (const folder of foldersOf(key)) this.folders.get(folder)?.delete(key);
  }

  async delete(key: string) {
    this.remove(key);
  }

  async copyIfUnchanged(from: string, to: string, eTag: string) {
    const found = this.objects.get(from);
    if (!found || eTagOf(found.body) !== eTag) return false;
    this.store(to, { ...found, body: new Uint8Array(found.body), headers: { ...found.headers }, lastModified: this.clock().toISOString() });
    return true;
  }

  async presignGet(key: string, expiresInSeconds: number, options: { contentDisposition?: string; contentType?: string } = {}) {
    const query = new URLSearchParams({ expires: String(expiresInSeconds), ...options });
    return `${this.baseUrl}/${encodeURI(key)}?${query}`;
  }

  async presignGetAll(prefix: string, keys: readonly string[], expiresInSeconds: number) {
    return Promise.all(keysUnder(prefix, keys).map((key) => this.presignGet(key, expiresInSeconds)));
  }

  async presignPost(key: string, rules: UploadRules): Promise<PresignedPost> {
    return { url: `${this.baseUrl}/`, fields: { key, 'Content-Type': rules.contentType } };
  }
}
