import type { Objects, StoredObject } from '../objects.ts';
import type { AudioFiles } from './audio-files.ts';
import { parseAudioKey } from './audio-key.ts';

/**
 * Keeping the record of audio files (audio-files.ts) in step with what the bucket holds, key by key:
 * for objects stored or removed by anything but the service (a bucket copied at a migration, a
 * restore, an operator's copy or delete). The bucket's event notifications name the keys
 * (functions/audio-files-sync/handler.ts) and the reconciliation walks the bucket (reconcile.ts); both end
 * here.
 *
 * Events come late, twice and out of order, and two deliveries for one key may run at once, so what
 * an event says (or a listing showed) is only a guess: it is written, then the key is looked up in the
 * bucket (HEAD), the truth. Where the bucket disagrees, what it has is written and looked up again. So
 * the last write to a key's record is always followed by a look that agrees with it, and any change
 * after that look is a new event: the record ends as the bucket is, whatever the order of deliveries
 * and however they interleave (looking first, then writing, would not: a look overtaken by a delete
 * and its event's handling would write a file already gone, for good). A stale guess shows in a
 * listing only until its look, a moment later; a guess that holds costs one HEAD.
 */
export interface SyncDeps {
  audio: Pick<Objects, 'head'>;
  audioFiles: Pick<AudioFiles, 'record' | 'forget'>;
}

/** What a key is (or is guessed to be) in the bucket: the object, or undefined when there is none. */
export type Seen = StoredObject | undefined;

export interface SyncReport {
  /** Keys recorded as present (the record already named some of them: recording again is harmless). */
  recorded: string[];
  /** Keys forgotten as absent. */
  forgotten: string[];
  /** Keys that could not be settled (a call failed, or the object kept changing): try them again. */
  failed: string[];
}

/** HEADs in flight at once, for a batch of up to a few thousand keys. */
const headsInFlight = 32;
/** Writes and looks before a key is given back as failed; each after the first means the guess or the object changed. */
const maxRounds = 3;

/** Same presence and size: the key names the content (its hash), so the time alone does not count as a change. */
const agree = (a: Seen, b: Seen) => (a === undefined ? b === undefined : b !== undefined && a.size === b.size);

/** Each key as the bucket has it now; a key whose HEAD failed maps to the error. */
async function look(deps: SyncDeps, keys: readonly string[]): Promise<Map<string, Seen | Error>> {
  const found = new Map<string, Seen | Error>();
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < keys.length; i = next++) {
      const key = keys[i]!;
      try {
        const info = await deps.audio.head(key);
        found.set(key, info && { key, size: info.size, lastModified: info.lastModified });
      } catch (error) {
        found.set(key, error instanceof Error ? error : new Error(String(error)));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(headsInFlight, keys.length) }, lane));
  return found;
}

/**
 * Records each audio key that is in the bucket and forgets each that is not, starting from a guess of
 * each (keys that are no audio keys are ignored). Idempotent: settling a key again changes nothing.
 */
export async function syncAudioFiles(deps: SyncDeps, guesses: ReadonlyMap<string, Seen>): Promise<SyncReport> {
  const report: SyncReport = { recorded: [], forgotten: [], failed: [] };
  let pending = [...guesses.keys()].filter((key) => parseAudioKey(key) !== undefined);
  let written = new Map(pending.map((key) => [key, guesses.get(key)]));
  for (let round = 1; pending.length > 0; round++) {
    const present = pending.flatMap((key) => written.get(key) ?? []);
    const absent = pending.filter((key) => written.get(key) === undefined);
    try {
      await Promise.all([present.length > 0 ? deps.audioFiles.record(present) : undefined, absent.length > 0 ? deps.audioFiles.forget(absent) : undefined]);
    } catch {
      report.failed.push(...pending);
      break;
    }
    const now = await look(deps, pending);
    const next: string[] = [];
    for (const key of pending) {
      const found = now.get(key);
      if (found instanceof Error) report.failed.push(key);
      else if (agree(written.get(key), found)) (found ? report.recorded : report.forgotten).push(key);
      else if (round === maxRounds) report.failed.push(key);
      else next.push(key);
    }
    pending = next;
    written = new Map(next.map((key) => [key, now.get(key) as Seen]));
  }
  return report;
}
