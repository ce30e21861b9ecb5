import { isStaff, type User } from '../auth/users.ts';
import { DomainError } from '../errors.ts';
import { logger } from '../log.ts';
import { VoiceRejected } from './speech.ts';
import { findBook, findLine } from './access.ts';
import type { AudioDeps } from './deps.ts';
import { fieldAnswerHead, fieldAudio, knownFields, presignAudio, urlSeconds, type FieldAudio } from './generate.ts';
import type { AudioField, VoiceId } from './voices.ts';

/**
 * `POST /audio/:bookId/lines/:lineId/:field` (editors and admins; only the role is checked): the
 * path's field, then the body's voice (functions/audio-api/contract.ts reads it after the field).
 */
export async function generateOne(deps: AudioDeps, params: Record<string, string | undefined>, field: AudioField, { voice }: { voice: VoiceId }) {
  const book = await findBook(deps, params.bookId);
  const line = await findLine(deps, book, params.lineId);
  const audio = await fieldAudio(deps, book, line, field, voice);
  return {
    ...fieldAnswerHead(book, line, field, voice),
    storageKey: audio.storageKey,
    audioUrl: await presignAudio(deps, audio.storageKey, urlSeconds.generated),
    cached: audio.cached,
    message: audio.cached ? generatedMessages.cached : generatedMessages.generated,
  };
}

export const generatedMessages = { cached: 'Audio retrieved from cache', generated: 'Audio generated successfully' } as const;

/** The batch's default fields (docs/SPEC.md 4.2). */
export const batchDefaultFields: readonly AudioField[] = ['arabic', 'english'];
export const fieldsNotStrings = 'fields must be an array of strings';

/** The batch's body as read (functions/audio-api/contract.ts): field names (default `batchDefaultFields`) and any voice. */
export interface BatchRequest {
  fields: readonly string[];
  voice: string;
}

/** `POST /audio/:bookId/lines/:lineId/batch`: each field on its own; one field's failure fails only that field. */
export async function generateBatch(deps: AudioDeps, params: Record<string, string | undefined>, body: BatchRequest) {
  // Names none of the three are the 400 listing them (the field catalogue's).
  const fields = knownFields(body.fields);
  const { voice } = body;
  const book = await findBook(deps, params.bookId);
  const line = await findLine(deps, book, params.lineId);

  const results: Record<string, FieldAudio & { audioUrl: string }> = {};
  const errors: Record<string, string> = {};
  await Promise.all(
    fields.map(async (field) => {
      try {
        const audio = await fieldAudio(deps, book, line, field, voice);
        results[field] = { ...audio, audioUrl: await presignAudio(deps, audio.storageKey, urlSeconds.generated) };
      } catch (error) {
        errors[field] = safeMessage(error);
      }
    }),
  );
  return { success: true, bookId: book.bookId, lineId: line.lineId, voice, results, ...(Object.keys(errors).length ? { errors } : {}) };
}

/** Our own messages reach the client; an SDK's (which can name accounts and resources) only the log. */
function safeMessage(error: unknown): string {
  if (error instanceof DomainError || error instanceof VoiceRejected) return error.message;
  logger.error('Audio generation failed', { error: error as Error });
  return 'Audio generation failed';
}

/** Who may have missing audio made on demand by the url and stream endpoints. */
export const generatesOnDemand = (user: User | undefined): boolean => Boolean(user && isStaff(user));
