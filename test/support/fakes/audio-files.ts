import type { AudioFiles } from '../../../lib/audio/audio-files.ts';
import { parseAudioKey } from '../../../lib/audio/audio-key.ts';
import type { StoredObject } from '../../../lib/objects.ts';

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** AudioFiles in memory (lib/adapters/dynamo/audio-files.ts): audio keys only, listed in key order. */
export class FakeAudioFiles implements AudioFiles {
  readonly files = new Map<string, StoredObject>();

  async record(files: readonly StoredObject[]) {
    for (const file of files) if (parseAudioKey(file.key)) this.files.set(file.key, { ...file });
  }

  async forget(keys: readonly string[]) {
    for (const key of keys) this.files.delete(key);
  }

  async forgetBook(bookId: string) {
    for (const key of [...this.files.keys()]) if (parseAudioKey(key)?.bookId === bookId) this.files.delete(key);
  }

  async has(key: string) {
    return this.files.has(key);
  }

  async ofBook(bookId: string, voice?: string) {
    return [...this.files.values()]
      .filter((file) => {
        const parts = parseAudioKey(file.key);
        return parts?.bookId === bookId && (voice === undefined || parts.voice === voice);
      })
      .sort((a, b) => compare(a.key, b.key))
      .map((file) => ({ ...file }));
  }
}
