import * as v from 'valibot';
import { bookNotFound, lineNotFound, subscribersOnly } from '../../lib/audio/access.ts';
import { audioJobStatuses } from '../../lib/audio/audio-job.ts';
import { invalidField, invalidFields, invalidVoice, unvalidatedVoice, urlSeconds, voiceRefused } from '../../lib/audio/generate.ts';
import { batchDefaultFields, fieldsNotStrings, generatedMessages, type BatchRequest } from '../../lib/audio/generation.ts';
import { jobNotFound } from '../../lib/audio/jobs.ts';
import { maxChunkChars } from '../../lib/audio/text-chunks.ts';
import { requestedFields } from '../../lib/audio/listing.ts';
import { invalidFieldOrVoice, maxExpires, notGenerated } from '../../lib/audio/playback.ts';
import { audioFields, defaultVoice, voiceIds, voices, type VoiceId } from '../../lib/audio/voices.ts';
import { queryInt } from '../../lib/paging.ts';
import { binaryAnswer, contracts, jsonAnswer, type Answer } from '../_shared/contract/contract.ts';
import { audioErrorAnswer, handedOverAnswer, lifetime, objectId, pathId, sharedSchemas, timestamp } from '../_shared/contract/shapes.ts';

/** `/audio/*` (docs/SPEC.md 4.2): voices, generation, playback, listings, deletion and whole-book jobs. */

// Shapes

const fieldName = v.pipe(v.picklist(audioFields), v.description('An audio field (docs/SPEC.md 2.9).'));
const voiceId = v.pipe(v.picklist(voiceIds), v.description('A voice id (docs/SPEC.md 2.9).'));
const anyVoice = v.pipe(v.string(), v.description('A voice as the request named it (not validated here).'), v.examples([defaultVoice]));
const url = (lifetime: string) => v.pipe(v.string(), v.url(), v.description(`A presigned GET URL of the MP3, valid ${lifetime}.`));
const storageKey = v.pipe(
  v.string(),
  v.description('The object key `<bookId>/<lineId>/<field>/<voice>_<contentHash>.mp3` (docs/SPEC.md 2.8).'),
  v.examples(['66f1c2a9e4b0a1b2c3d4e5f6/66f1c2a9e4b0a1b2c3d4e601/arabic/alloy_a3f9c2e17b4d5e6f8091a2b3c4d5e6f7.mp3']),
);
const count = v.pipe(v.number(), v.integer(), v.minValue(0));
/** What a field's audio answer starts with (generation and the URL): lib/audio/generate.ts fieldAnswerHead. */
const fieldAnswerHead = { success: v.literal(true), bookId: objectId, lineId: objectId, field: fieldName, voice: voiceId };
const byField = <S extends v.GenericSchema>(schema: S) => v.strictObject({ arabic: schema, english: schema, commentary: schema });
const someFields = <S extends v.GenericSchema>(schema: S) => v.strictObject({ arabic: v.optional(schema), english: v.optional(schema), commentary: v.optional(schema) });

const Voice = v.pipe(v.strictObject({ id: voiceId, name: v.string(), description: v.string() }), v.description('A text-to-speech voice (docs/SPEC.md 2.9).'));

const jobFields = {
  _id: objectId,
  voice: anyVoice,
  status: v.picklist(audioJobStatuses),
  progress: v.pipe(v.number(), v.minValue(0), v.maxValue(100), v.description('Percent of the book’s lines done.')),
  error: v.optional(v.pipe(v.string(), v.description('Only on a failed job.'))),
  createdAt: timestamp,
  updatedAt: timestamp,
  __v: v.pipe(v.number(), v.integer()),
};
const AudioJob = v.pipe(v.strictObject({ ...jobFields, bookId: objectId }), v.description('A whole-book generation job (docs/SPEC.md 2.7).'));
const metadataValue = (name: string) => v.pipe(v.unknown(), v.description(`The book’s metadata \`${name}\`; null when it has none.`));
const JobBook = v.pipe(
  v.strictObject({ _id: objectId, title: v.string(), author: v.string(), category: metadataValue('category'), progress: metadataValue('progress'), difficulty: metadataValue('difficulty') }),
  v.description('The job’s book, populated (docs/SPEC.md 2.7).'),
);
const ListedAudioJob = v.pipe(
  v.strictObject({ ...jobFields, bookId: v.pipe(v.nullable(JobBook), v.description('The book; null when it no longer exists.')) }),
  v.description('An AudioJob as the job list shows it: `bookId` populated.'),
);

/** docs/SPEC.md 4.2 "book read access": the 402 of a subscriber-only book. */
const SubscriptionRequired = v.pipe(
  v.strictObject({
    requiresSubscription: v.literal(true),
    message: v.literal(subscribersOnly),
    contentType: v.literal('book'),
    contentId: objectId,
    requiredSubscriptionTier: v.nullable(v.string()),
    creator: v.pipe(
      v.strictObject({ _id: objectId, username: v.optional(v.string()), profilePicture: v.optional(v.nullable(v.string())) }),
      v.description('The book’s owner; only `_id` when the account no longer exists.'),
    ),
  }),
  v.description('The book is for subscribers of its creator at `requiredSubscriptionTier`.'),
);

const LineFieldAudio = v.pipe(
  v.strictObject({ text: v.string(), hasAudio: v.boolean(), audioUrl: v.nullable(url(lifetime(urlSeconds.generated))) }),
  v.description('A line field’s text and its audio in the asked voice: `audioUrl` is null when it has none.'),
);
const LineContent = v.pipe(
  v.strictObject({ arabic: v.string(), english: v.string(), commentary: v.string(), rootwords: v.string() }),
  v.description('The line’s text (docs/SPEC.md 2.6).'),
);
const LineAudioFile = v.pipe(
  v.strictObject({ storageKey, field: fieldName, voice: anyVoice, contentHash: v.string(), size: count, lastModified: timestamp, url: url(lifetime(urlSeconds.generated)) }),
  v.description('A stored MP3 of a line.'),
);
const BookAudioFile = v.pipe(
  v.strictObject({ storageKey, voice: anyVoice, size: count, lastModified: timestamp, url: url(lifetime(urlSeconds.all)) }),
  v.description('A stored MP3 of a line field, as the book’s listing shows it.'),
);
const GeneratedAudio = v.pipe(
  v.strictObject({ storageKey, cached: v.boolean(), audioUrl: url(lifetime(urlSeconds.generated)) }),
  v.description('A field’s audio: `cached` when the same content and voice were spoken before.'),
);

export const audioSchemas = { Voice, AudioJob, ListedAudioJob, SubscriptionRequired, LineFieldAudio, LineContent, LineAudioFile, BookAudioFile, GeneratedAudio };

// Errors (docs/SPEC.md 7): `{error}` plus the spec's lists; 500 bodies carry `details`.

const errorOf = <const T extends readonly [string, ...string[]]>(texts: T) => v.strictObject({ error: v.picklist(texts) });
const availableFields = v.strictObject({ error: v.literal(invalidField), availableFields: v.array(fieldName) });
const availableVoices = v.strictObject({ error: v.literal(invalidVoice), availableVoices: v.array(voiceId) });
const fieldsRefused = v.strictObject({ error: v.literal(invalidFields), invalidFields: v.array(v.string()), availableFields: v.array(fieldName) });

/** A route's own 400s, if any. */
const refused = (description: string, ...own: v.GenericSchema[]): Record<number, Answer> =>
  own.length ? { 400: jsonAnswer(description, own.length > 1 ? v.union(own) : own[0]!) } : {};
const missing = <const T extends readonly [string, ...string[]]>(description: string, texts: T) => jsonAnswer(description, errorOf(texts));
const subscription = jsonAnswer('The book is for its creator’s subscribers (docs/SPEC.md 4.2), and the caller is not one at the tier.', SubscriptionRequired);

/** Each route's operation text, the `error` of its 500 (functions/audio-api/handler.ts's handlers use them). */
/** How long a client may keep a streamed MP3: a year. */
export const mp3CacheControl = 'max-age=31536000';

const audioFailures = {
  'GET /audio/voices': 'Failed to list voices',
  'GET /audio/fields': 'Failed to list fields',
  'POST /audio/{bookId}/generate': 'Failed to start audio generation',
  'GET /audio/jobs/{jobId}': 'Failed to fetch job',
  'GET /audio/jobs': 'Failed to fetch jobs',
  'GET /audio/{bookId}/lines-with-audio': 'Failed to fetch lines with audio',
  'POST /audio/{bookId}/lines/{lineId}/batch': 'Failed to generate audio',
  'POST /audio/{bookId}/lines/{lineId}/{field}': 'Failed to generate audio',
  'GET /audio/{bookId}/lines/{lineId}/{field}/stream': 'Failed to stream audio',
  'GET /audio/{bookId}/lines/{lineId}/{field}/url': 'Failed to get audio URL',
  'GET /audio/{bookId}/lines/{lineId}': 'Failed to list line audio',
  'DELETE /audio/{bookId}/lines/{lineId}/{field}': 'Failed to delete audio',
  'DELETE /audio/{bookId}/lines/{lineId}': 'Failed to delete line audio',
  'DELETE /audio/{bookId}': 'Failed to delete book audio',
  'GET /audio/{bookId}/all': 'Failed to fetch book audio',
} as const;
const failed = (route: keyof typeof audioFailures, causes: string) => audioErrorAnswer(`\`${audioFailures[route]}\`, with \`details\`: ${causes}.`);
const tooLarge = handedOverAnswer;

// Parameters

const bookId = v.object({ bookId: pathId('The book’s ObjectId; a malformed one is a 500 (docs/SPEC.md 4.2).') });
const lineParams = { ...bookId.entries, lineId: pathId('The line’s ObjectId; a malformed one is a 500.') };
const fieldParam = pathId('`arabic`, `english` or `commentary`, in any case.');

/** `voice` where it must be one of the six (stream, url): none or empty is `alloy`; the case counts. */
const playbackVoice = v.pipe(
  v.optional(v.string(), ''),
  v.transform((value) => value || defaultVoice),
  v.picklist(voiceIds, invalidFieldOrVoice),
  v.description(`A voice id, default \`${defaultVoice}\`; anything else is the 400 \`${invalidFieldOrVoice}\`.`),
  v.metadata({ default: defaultVoice }),
);

/** The url endpoint's lifetime: whole seconds as lib/paging.ts reads numbers, held to 1 s..7 days (the longest a signed URL lives). */
const expires = v.pipe(
  v.optional(v.string(), ''),
  v.transform((value) => Math.min(Math.max(queryInt(value, urlSeconds.defaultExpires, 0), 1), maxExpires)),
  v.number(),
  v.integer(),
  v.minValue(1),
  v.maxValue(maxExpires),
  v.description(
    `The URL’s lifetime in seconds (docs/SPEC.md 8). Anything but digits reads as ${urlSeconds.defaultExpires}; 0 reads as 1 and more than ${maxExpires} (7 days, the longest a signed URL lives) as ${maxExpires}.`,
  ),
  v.metadata({ default: urlSeconds.defaultExpires }),
);

/** An empty value is none. */
const optionalText = (description: string, lowerCase = false) =>
  v.pipe(
    v.optional(v.string(), ''),
    v.transform((value) => (lowerCase ? value.toLowerCase() : value) || undefined),
    v.optional(v.string()),
    v.description(description),
  );

// Examples

const ex = {
  bookId: '66f1c2a9e4b0a1b2c3d4e5f6',
  lineId: '66f1c2a9e4b0a1b2c3d4e601',
  jobId: '66f1c2a9e4b0a1b2c3d4e7a0',
  hash: 'a3f9c2e17b4d5e6f8091a2b3c4d5e6f7',
  at: '2026-11-23T09:30:00.000Z',
};
const exKey = (field: string, voice: string) => `${ex.bookId}/${ex.lineId}/${field}/${voice}_${ex.hash}.mp3`;
const exUrl = (field: string, voice: string, seconds: number = urlSeconds.generated) =>
  `https://audio.maktaba.example/${exKey(field, voice)}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=${seconds}&X-Amz-Signature=5c1e0d`;
const exLine = {
  arabic: 'إنما الأعمال بالنيات، وإنما لكل امرئ ما نوى',
  english: 'Actions are only by intentions, and every person shall have only what they intended.',
  commentary: 'The first hadith of an-Nawawi’s forty.',
  rootwords: 'ع م ل، ن و ي',
};
const titles = { english: 'The Forty Hadith of an-Nawawi', arabic: 'الأربعون النووية' } as const;
/** One example per language: the English text spoken in `echo`, the Arabic text in `nova`. */
const languages = [
  ['english', 'English', 'echo'],
  ['arabic', 'Arabic', 'nova'],
] as const;
const examples = <T>(make: (field: 'english' | 'arabic', voice: string) => T, what: string) =>
  Object.fromEntries(languages.map(([field, name, voice]) => [field, { summary: `${name}: ${what}`, value: make(field, voice) }]));

// Contracts

export const audioContracts = contracts({
  'GET /audio/voices': {
    tag: 'Audio',
    summary: 'List the voices',
    failure: audioFailures['GET /audio/voices'],
    description: `The six voices (docs/SPEC.md 2.9); \`${defaultVoice}\` is the default everywhere.`,
    responses: {
      200: jsonAnswer('The voices.', v.strictObject({ voices: v.array(Voice) }), { voices: { summary: 'The six voices', value: { voices } } }),
    },
  },
  'GET /audio/fields': {
    tag: 'Audio',
    summary: 'List the audio fields',
    failure: audioFailures['GET /audio/fields'],
    description: 'The line fields that can have audio (docs/SPEC.md 2.9).',
    responses: {
      200: jsonAnswer('The fields.', v.strictObject({ fields: v.array(fieldName) }), { fields: { summary: 'The three fields', value: { fields: audioFields } } }),
    },
  },
  'POST /audio/{bookId}/generate': {
    tag: 'Audio jobs',
    summary: 'Generate a whole book’s audio',
    failure: audioFailures['POST /audio/{bookId}/generate'],
    description:
      'Stores a `pending` AudioJob and answers at once; the job then speaks every line’s fields in the background (cached audio is kept). The voice is not validated (docs/SPEC.md 4.2): a voice the provider lacks fails each field, which the job logs and counts. Only the role is checked, not ownership. A malformed book id is a 500.',
    params: bookId,
    body: {
      kind: 'json',
      // Any voice goes; one that is missing, empty or not text reads as the default, as before.
      schema: v.object({
        voice: v.pipe(
          v.fallback(v.optional(v.string(), defaultVoice), defaultVoice),
          v.transform((value: string) => unvalidatedVoice(value)),
          v.string(),
          v.description(`A voice id, default \`${defaultVoice}\`; not validated.`),
          v.metadata({ default: defaultVoice }),
        ),
      }),
      // Never refused: any voice goes.
      invalid: 400,
      examples: {
        english: { summary: 'An English reading voice', value: { voice: 'echo' } },
        arabic: { summary: 'An Arabic reading voice', value: { voice: 'nova' } },
      },
    },
    responses: {
      200: jsonAnswer('The job was stored; follow it at `GET /audio/jobs/{jobId}`.', v.strictObject({ success: v.literal(true), jobId: objectId }), {
        started: { summary: 'A job started', value: { success: true, jobId: ex.jobId } },
      }),
      404: missing('The book does not exist.', [bookNotFound]),
      500: failed('POST /audio/{bookId}/generate', 'a malformed book id, or the job could not be stored or queued'),
    },
  },
  'GET /audio/jobs/{jobId}': {
    tag: 'Audio jobs',
    summary: 'Read a job',
    failure: audioFailures['GET /audio/jobs/{jobId}'],
    description: 'The raw AudioJob (docs/SPEC.md 2.7). Any editor or admin may read any job. A malformed job id is a 500.',
    params: v.object({ jobId: pathId('The job’s ObjectId; a malformed one is a 500.') }),
    responses: {
      200: jsonAnswer('The job.', AudioJob, {
        running: {
          summary: 'A job in progress',
          value: { _id: ex.jobId, bookId: ex.bookId, voice: 'nova', status: 'in_progress', progress: 45, createdAt: ex.at, updatedAt: '2026-11-23T09:31:12.000Z', __v: 0 },
        },
        failed: {
          summary: 'A failed job',
          value: { _id: ex.jobId, bookId: ex.bookId, voice: 'alloy', status: 'failed', progress: 20, error: 'Unexpected error', createdAt: ex.at, updatedAt: '2026-11-23T09:40:00.000Z', __v: 0 },
        },
      }),
      404: missing('The job does not exist.', [jobNotFound]),
      500: failed('GET /audio/jobs/{jobId}', 'a malformed job id, or the store failed'),
    },
  },
  'GET /audio/jobs': {
    tag: 'Audio jobs',
    summary: 'List the jobs',
    failure: audioFailures['GET /audio/jobs'],
    description: 'Every user’s jobs, newest first, each with its book populated; no paging (docs/SPEC.md 8).',
    responses: {
      200: jsonAnswer('The jobs.', v.strictObject({ success: v.literal(true), jobs: v.array(ListedAudioJob) }), {
        jobs: {
          summary: 'One completed job',
          value: {
            success: true,
            jobs: [
              {
                _id: ex.jobId,
                bookId: { _id: ex.bookId, title: titles.arabic, author: 'يحيى بن شرف النووي', category: 'hadith', progress: null, difficulty: 'beginner' },
                voice: 'nova',
                status: 'completed',
                progress: 100,
                createdAt: ex.at,
                updatedAt: '2026-11-23T09:52:41.000Z',
                __v: 0,
              },
            ],
          },
        },
      }),
      303: tooLarge,
      500: failed('GET /audio/jobs', 'a store failed'),
    },
  },
  'GET /audio/{bookId}/lines-with-audio': {
    tag: 'Audio',
    summary: 'List a book’s lines with their audio in a voice',
    failure: audioFailures['GET /audio/{bookId}/lines-with-audio'],
    description:
      'Every line of the book, each field with its text and whether it has audio for the current content in the voice; never generates. Book read access (docs/SPEC.md 4.2); an invalid token is read as no token.',
    params: bookId,
    query: v.object({
      voice: v.pipe(
        v.optional(v.string(), ''),
        v.transform((value) => value || defaultVoice),
        v.string(),
        v.description(`A voice id in any case, default \`${defaultVoice}\`, echoed as sent. A name that is no voice lists no audio.`),
        v.metadata({ default: defaultVoice }),
      ),
    }),
    responses: {
      200: jsonAnswer(
        'Every line, in book order.',
        v.strictObject({ success: v.literal(true), bookId: objectId, bookTitle: v.string(), voice: v.string(), lines: v.array(v.strictObject({ lineId: objectId, fields: byField(LineFieldAudio) })) }),
        examples(
          (field, voice) => ({
            success: true,
            bookId: ex.bookId,
            bookTitle: titles[field],
            voice,
            lines: [
              {
                lineId: ex.lineId,
                fields: {
                  arabic: { text: exLine.arabic, hasAudio: field === 'arabic', audioUrl: field === 'arabic' ? exUrl('arabic', voice) : null },
                  english: { text: exLine.english, hasAudio: field === 'english', audioUrl: field === 'english' ? exUrl('english', voice) : null },
                  commentary: { text: exLine.commentary, hasAudio: false, audioUrl: null },
                },
              },
            ],
          }),
          'one line, its text spoken',
        ),
      ),
      303: tooLarge,
      402: subscription,
      404: missing('The book does not exist, or it is private and the caller may not read it.', [bookNotFound]),
      500: failed('GET /audio/{bookId}/lines-with-audio', 'a malformed book id, or a store failed'),
    },
  },
  'POST /audio/{bookId}/lines/{lineId}/batch': {
    tag: 'Audio',
    summary: 'Generate several fields of a line',
    failure: audioFailures['POST /audio/{bookId}/lines/{lineId}/batch'],
    description:
      'Each field from the cache or spoken now, each on its own: a field that fails (no text, a voice the provider lacks) is listed in `errors` and fails only itself. The voice is not validated up front (docs/SPEC.md 4.2). Fields that are not an array of strings, or a malformed id, are a 500.',
    params: v.object(lineParams),
    body: {
      kind: 'json',
      // A `fields` that is not an array of strings is the spec's 500; names none of the three are the
      // domain's 400 (it lists the fields). Any voice goes: missing, empty or not text is the default.
      schema: v.object({
        fields: v.optional(
          v.pipe(
            v.unknown(),
            v.transform((value) => (value === null ? undefined : value) as string[] | undefined),
            v.optional(
              v.pipe(
                v.array(v.string(fieldsNotStrings), fieldsNotStrings),
                v.description(`\`arabic\`, \`english\` or \`commentary\`, in any case; anything else is a 400 naming it; not an array of strings: the 500 \`${fieldsNotStrings}\`.`),
              ),
              [...batchDefaultFields],
            ),
          ),
          [...batchDefaultFields],
        ),
        voice: v.optional(
          v.pipe(v.unknown(), v.transform(unvalidatedVoice), v.string(), v.description('A voice id, not validated up front: a voice the provider lacks fails each field.')),
          defaultVoice,
        ),
      }) satisfies v.GenericSchema<unknown, BatchRequest>,
      invalid: 500,
      examples: {
        english: { summary: 'The English text and its commentary', value: { fields: ['english', 'commentary'], voice: 'echo' } },
        arabic: { summary: 'The Arabic text', value: { fields: ['arabic'], voice: 'nova' } },
      },
    },
    responses: {
      200: jsonAnswer(
        'The fields’ audio, and the fields that failed.',
        v.strictObject({
          success: v.literal(true),
          bookId: objectId,
          lineId: objectId,
          voice: anyVoice,
          results: v.pipe(someFields(GeneratedAudio), v.description('The fields that have audio.')),
          errors: v.optional(v.pipe(someFields(v.string()), v.description('The fields that failed, each with why; absent when none did.'))),
        }),
        {
          english: {
            summary: 'English: the text spoken, the empty commentary failed',
            value: {
              success: true,
              bookId: ex.bookId,
              lineId: ex.lineId,
              voice: 'echo',
              results: { english: { storageKey: exKey('english', 'echo'), cached: false, audioUrl: exUrl('english', 'echo') } },
              errors: { commentary: 'The commentary text of this line is empty' },
            },
          },
          arabic: {
            summary: 'Arabic: from the cache',
            value: {
              success: true,
              bookId: ex.bookId,
              lineId: ex.lineId,
              voice: 'nova',
              results: { arabic: { storageKey: exKey('arabic', 'nova'), cached: true, audioUrl: exUrl('arabic', 'nova') } },
            },
          },
        },
      ),
      ...refused('A field name that is none of the three (`invalidFields`, `availableFields`).', fieldsRefused),
      404: missing('The book or the line does not exist.', [bookNotFound, lineNotFound]),
      500: failed('POST /audio/{bookId}/lines/{lineId}/batch', `\`${fieldsNotStrings}\`, a malformed id, or a store failed`),
    },
  },
  'POST /audio/{bookId}/lines/{lineId}/{field}': {
    tag: 'Audio',
    summary: 'Generate one field of a line',
    failure: audioFailures['POST /audio/{bookId}/lines/{lineId}/{field}'],
    description:
      `From the cache when the line’s content was spoken in the voice before; else spoken (text over ${maxChunkChars.toLocaleString('en-US')} characters in chunks), stored, and the field’s stale audio removed. Field and voice are validated. An empty field, a provider or storage failure, or a malformed id is a 500.`,
    params: v.object({ ...lineParams, field: fieldParam }),
    body: {
      kind: 'json',
      // Read after the path's field (its 400 wins when both are wrong); an unknown voice is the 400 listing the voices.
      schema: v.object({
        voice: v.optional(
          v.pipe(
            v.unknown(),
            v.transform((value) => (value === null || value === '' ? undefined : value) as VoiceId | undefined),
            v.optional(v.pipe(voiceId, v.description(`A voice id, default \`${defaultVoice}\` (also when empty or null); anything else is a 400.`)), defaultVoice),
          ),
          defaultVoice,
        ),
      }),
      invalid: voiceRefused,
      examples: {
        english: { summary: 'An English voice', value: { voice: 'echo' } },
        arabic: { summary: 'An Arabic voice', value: { voice: 'nova' } },
      },
    },
    responses: {
      200: jsonAnswer(
        'The field’s audio.',
        v.strictObject({
          ...fieldAnswerHead,
          storageKey,
          audioUrl: url(lifetime(urlSeconds.generated)),
          cached: v.boolean(),
          message: v.picklist([generatedMessages.cached, generatedMessages.generated]),
        }),
        examples(
          (field, voice) => ({
            success: true,
            bookId: ex.bookId,
            lineId: ex.lineId,
            field,
            voice,
            storageKey: exKey(field, voice),
            audioUrl: exUrl(field, voice),
            cached: field === 'arabic',
            message: field === 'arabic' ? generatedMessages.cached : generatedMessages.generated,
          }),
          'the field’s audio',
        ),
      ),
      ...refused('A field that is none of the three (`availableFields`), or a voice that is none of the six (`availableVoices`).', availableFields, availableVoices),
      404: missing('The book or the line does not exist.', [bookNotFound, lineNotFound]),
      500: failed('POST /audio/{bookId}/lines/{lineId}/{field}', 'the field is empty, the provider or storage failed, or an id is malformed'),
    },
  },
  'GET /audio/{bookId}/lines/{lineId}/{field}/stream': {
    tag: 'Audio',
    summary: 'Stream a line field’s MP3',
    failure: audioFailures['GET /audio/{bookId}/lines/{lineId}/{field}/stream'],
    description:
      'The whole MP3, always 200 (Range is not honoured), cached for a year. Anyone gets audio already made for the line’s current content; for an editor or admin missing audio is made on demand. No read-access check (docs/SPEC.md 4.2); an invalid token is read as no token.',
    params: v.object({ ...lineParams, field: fieldParam }),
    query: v.object({ voice: playbackVoice }),
    responses: {
      200: binaryAnswer(`The MP3 (\`Accept-Ranges: bytes\`, \`Cache-Control: ${mp3CacheControl}\`).`, 'audio/mpeg'),
      303: jsonAnswer('An MP3 too large for AWS Lambda: follow `Location` to it.', sharedSchemas.HandedOver),
      ...refused(`\`${invalidFieldOrVoice}\`.`, errorOf([invalidFieldOrVoice])),
      404: missing('The book or the line does not exist, or the audio has not been made and the caller is no editor.', [bookNotFound, lineNotFound, notGenerated]),
      500: failed('GET /audio/{bookId}/lines/{lineId}/{field}/stream', 'on-demand generation failed (an empty field), a malformed id, or a store failed'),
    },
  },
  'GET /audio/{bookId}/lines/{lineId}/{field}/url': {
    tag: 'Audio',
    summary: 'Get a presigned URL of a line field’s MP3',
    failure: audioFailures['GET /audio/{bookId}/lines/{lineId}/{field}/url'],
    description:
      'A URL (audio/mpeg, inline) that stops working after `expires` seconds. The same rule as the stream: existing audio for anyone (`cached` is then true), made on demand for an editor or admin. Book read access; an invalid token is read as no token.',
    params: v.object({ ...lineParams, field: fieldParam }),
    query: v.object({ voice: playbackVoice, expires }),
    responses: {
      200: jsonAnswer(
        'The URL.',
        v.strictObject({
          ...fieldAnswerHead,
          audioUrl: url('`expiresIn` seconds'),
          expiresIn: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(maxExpires)),
          cached: v.boolean(),
        }),
        examples(
          (field, voice) => ({ success: true, bookId: ex.bookId, lineId: ex.lineId, field, voice, audioUrl: exUrl(field, voice, 600), expiresIn: 600, cached: true }),
          'a URL for ten minutes',
        ),
      ),
      ...refused(`\`${invalidFieldOrVoice}\`.`, errorOf([invalidFieldOrVoice])),
      402: subscription,
      404: missing('The book or the line does not exist, the book is private to the caller, or the audio has not been made and the caller is no editor.', [
        bookNotFound,
        lineNotFound,
        notGenerated,
      ]),
      500: failed('GET /audio/{bookId}/lines/{lineId}/{field}/url', 'on-demand generation failed (an empty field), a malformed id, or a store failed'),
    },
  },
  'GET /audio/{bookId}/lines/{lineId}': {
    tag: 'Audio',
    summary: 'List a line’s stored audio',
    failure: audioFailures['GET /audio/{bookId}/lines/{lineId}'],
    description: 'Every stored MP3 of the line, all fields and voices, and the line’s text; never generates. Book read access; an invalid token is read as no token.',
    params: v.object(lineParams),
    responses: {
      200: jsonAnswer(
        'The line’s files.',
        v.strictObject({ success: v.literal(true), bookId: objectId, lineId: objectId, audioFiles: v.array(LineAudioFile), lineContent: LineContent }),
        examples(
          (field, voice) => ({
            success: true,
            bookId: ex.bookId,
            lineId: ex.lineId,
            audioFiles: [{ storageKey: exKey(field, voice), field, voice, contentHash: ex.hash, size: 48_213, lastModified: ex.at, url: exUrl(field, voice) }],
            lineContent: exLine,
          }),
          'one file',
        ),
      ),
      402: subscription,
      404: missing('The book or the line does not exist, or the book is private to the caller.', [bookNotFound, lineNotFound]),
      500: failed('GET /audio/{bookId}/lines/{lineId}', 'a malformed id, or a store failed'),
    },
  },
  'DELETE /audio/{bookId}/lines/{lineId}/{field}': {
    tag: 'Audio',
    summary: 'Delete a line field’s audio',
    failure: audioFailures['DELETE /audio/{bookId}/lines/{lineId}/{field}'],
    description:
      'With `voice`: that voice’s file for the line’s current content (`deletedFiles` is always 1). Without: the field’s audio in every voice (`deletedFiles` is `"all"`). The field is not validated (docs/SPEC.md 4.2).',
    params: v.object({ ...lineParams, field: pathId('The field; not validated.') }),
    query: v.object({ voice: optionalText('A voice: delete only its file. Empty or absent: every voice.') }),
    responses: {
      200: jsonAnswer('Deleted.', v.strictObject({ success: v.literal(true), message: v.string(), deletedFiles: v.union([v.literal(1), v.literal('all')]) }), {
        voice: { summary: 'One voice', value: { success: true, message: 'Deleted the nova audio of arabic', deletedFiles: 1 } },
        all: { summary: 'Every voice', value: { success: true, message: 'Deleted all audio of english', deletedFiles: 'all' } },
      }),
      404: missing('The book or the line does not exist.', [bookNotFound, lineNotFound]),
      500: failed('DELETE /audio/{bookId}/lines/{lineId}/{field}', 'a malformed id, or a store failed'),
    },
  },
  'DELETE /audio/{bookId}/lines/{lineId}': {
    tag: 'Audio',
    summary: 'Delete a line’s audio',
    failure: audioFailures['DELETE /audio/{bookId}/lines/{lineId}'],
    description: 'Every field and voice of the line; the line stays.',
    params: v.object(lineParams),
    responses: {
      200: jsonAnswer('Deleted.', v.strictObject({ success: v.literal(true), message: v.string(), deletedFiles: count }), {
        deleted: { summary: 'Four files', value: { success: true, message: 'Deleted all audio of the line', deletedFiles: 4 } },
      }),
      404: missing('The book or the line does not exist.', [bookNotFound, lineNotFound]),
      500: failed('DELETE /audio/{bookId}/lines/{lineId}', 'a malformed id, or a store failed'),
    },
  },
  'DELETE /audio/{bookId}': {
    tag: 'Audio',
    summary: 'Delete a book’s audio',
    failure: audioFailures['DELETE /audio/{bookId}'],
    description: 'All audio under the book; the book stays.',
    params: bookId,
    responses: {
      200: jsonAnswer('Deleted.', v.strictObject({ success: v.literal(true), message: v.string(), deletedFiles: count }), {
        deleted: { summary: 'A book’s files', value: { success: true, message: 'Deleted all audio of the book', deletedFiles: 1260 } },
      }),
      404: missing('The book does not exist.', [bookNotFound]),
      500: failed('DELETE /audio/{bookId}', 'a malformed id, or a store failed'),
    },
  },
  'GET /audio/{bookId}/all': {
    tag: 'Audio',
    summary: 'List a book’s stored audio',
    failure: audioFailures['GET /audio/{bookId}/all'],
    description:
      'The lines that have stored audio in the asked fields (and voice), in book order, each with its text and its files by field; never generates. Book read access; an invalid token is read as no token.',
    params: bookId,
    query: v.object({
      // The 400 lists the invalid fields and the allowed ones: lib/audio/listing.ts throws it as it reads them.
      fields: v.pipe(
        v.optional(v.string(), ''),
        v.transform((value: string) => requestedFields(value)),
        v.array(fieldName),
        v.description('Comma-separated fields, in any case; absent or empty: all three. Any other name is a 400 naming it (`invalidFields`, `availableFields`).'),
        v.metadata({ default: [...audioFields] }),
      ),
      voice: optionalText('Only this voice, in any case. Absent or empty: every voice.', true),
    }),
    responses: {
      200: jsonAnswer(
        'The lines with audio.',
        v.strictObject({
          success: v.literal(true),
          bookId: objectId,
          bookTitle: v.string(),
          requestedFields: v.array(fieldName),
          totalFiles: count,
          lines: v.array(v.strictObject({ lineId: objectId, content: LineContent, audio: v.pipe(someFields(v.array(BookAudioFile)), v.description('The files by field.')) })),
        }),
        examples(
          (field, voice) => ({
            success: true,
            bookId: ex.bookId,
            bookTitle: titles[field],
            requestedFields: [field],
            totalFiles: 1,
            lines: [
              {
                lineId: ex.lineId,
                content: exLine,
                audio: { [field]: [{ storageKey: exKey(field, voice), voice, size: 48_213, lastModified: ex.at, url: exUrl(field, voice, urlSeconds.all) }] },
              },
            ],
          }),
          'one field in one voice',
        ),
      ),
      303: tooLarge,
      ...refused('A field name that is none of the three (`invalidFields`, `availableFields`).', fieldsRefused),
      402: subscription,
      404: missing('The book does not exist, or it is private and the caller may not read it.', [bookNotFound]),
      500: failed('GET /audio/{bookId}/all', 'a malformed book id, or a store failed'),
    },
  },
});
