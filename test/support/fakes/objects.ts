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

/** Objects in memory (lib/adapters/s3/objects.ts): one bucket; URLs name the key and never expire. */
export class FakeObjects implements Objects {
  readonly objects = new Map<string, FakeObject>();

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
    return [...this.objects.keys()].filter((key) => key.startsWith(prefix)).sort(listingOrder);
  }

  async put(key: string, body: Uint8Array | string, contentType: string, headers: StoredHeaders = {}) {
    const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : new Uint8Array(body);
    this.objects.set(key, { body: bytes, contentType, headers: { ...headers }, lastModified: this.clock().toISOString() });
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
    for (const key of keys) this.objects.delete(key);
    return keys.length;
  }

  async head(key: string): Promise<ObjectInfo | undefined> {
    const found = this.objects.get(key);
    return found && { size: found.body.byteLength, contentType: found.contentType, lastModified: found.lastModified, eTag: eTagOf(found.body) };
  }

  async delete(key: string) {
    this.objects.delete(key);
  }

  async copyIfUnchanged(from: string, to: string, eTag: string) {
    const found = this.objects.get(from);
    if (!found || eTagOf(found.body) !== eTag) return false;
    this.objects.set(to, { ...found, body: new Uint8Array(found.body), headers: { ...found.headers }, lastModified: this.clock().toISOString() });
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
