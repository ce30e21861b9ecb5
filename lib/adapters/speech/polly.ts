import {
  SynthesizeSpeechCommand,
  type Engine,
  type LanguageCode,
  type PollyClient,
  type SynthesizeSpeechCommandInput,
  type VoiceId as PollyVoiceId,
} from '@aws-sdk/client-polly';
import { VoiceRejected, type Speech } from '../../audio/speech.ts';
import { splitText } from '../../audio/text-chunks.ts';
import { isVoiceId, voiceIds, type SpeechLanguage, type VoiceId } from '../../audio/voices.ts';
import { policies, retry } from '../../retry.ts';

/**
 * Amazon Polly behind the Speech port. Long text is split (lib/audio/text-chunks.ts) into chunks Polly
 * accepts, each chunk is one SynthesizeSpeech call (plain text, MP3), and the MP3 parts are joined by
 * concatenation: MP3 is a sequence of self-contained frames, so the parts play back to back.
 */

/** Polly bills at most 3,000 characters per SynthesizeSpeech call (and the spec allows up to 4,000). */
export const pollyMaxChars = 3_000;
/** The chunk size used: under Polly's limit with a margin. */
export const pollyChunkChars = 2_900;

export interface PollyVoice {
  voiceId: PollyVoiceId;
  engine: Engine;
  /** Sent as LanguageCode; it matters for the bilingual Gulf Arabic voices (Hala, Zayd). */
  languageCode: LanguageCode;
}

/** Spec voice id -> the Polly voice that speaks it, per language. */
export type VoiceMap = Readonly<Record<string, Readonly<Record<SpeechLanguage, PollyVoice>>>>;

/**
 * The six spec voices (docs/SPEC.md 2.9). Polly has three Arabic voices: Zeina (standard engine, Modern
 * Standard Arabic `arb`) and Hala and Zayd (neural only, Gulf Arabic `ar-AE`), so each is used by two
 * spec voices; every spec voice has its own English neural voice (US or British English).
 */
export const defaultVoiceMap = {
  alloy: {
    ar: { voiceId: 'Hala', engine: 'neural', languageCode: 'ar-AE' },
    en: { voiceId: 'Joanna', engine: 'neural', languageCode: 'en-US' },
  },
  echo: {
    ar: { voiceId: 'Zayd', engine: 'neural', languageCode: 'ar-AE' },
    en: { voiceId: 'Matthew', engine: 'neural', languageCode: 'en-US' },
  },
  fable: {
    ar: { voiceId: 'Zeina', engine: 'standard', languageCode: 'arb' },
    en: { voiceId: 'Brian', engine: 'neural', languageCode: 'en-GB' },
  },
  onyx: {
    ar: { voiceId: 'Zayd', engine: 'neural', languageCode: 'ar-AE' },
    en: { voiceId: 'Stephen', engine: 'neural', languageCode: 'en-US' },
  },
  nova: {
    ar: { voiceId: 'Hala', engine: 'neural', languageCode: 'ar-AE' },
    en: { voiceId: 'Ruth', engine: 'neural', languageCode: 'en-US' },
  },
  shimmer: {
    ar: { voiceId: 'Zeina', engine: 'standard', languageCode: 'arb' },
    en: { voiceId: 'Amy', engine: 'neural', languageCode: 'en-GB' },
  },
} as const satisfies Record<VoiceId, Record<SpeechLanguage, PollyVoice>>;

const engines: readonly string[] = ['standard', 'neural', 'long-form', 'generative'] satisfies Engine[];

/**
 * The voice map with an operator's overrides (`VOICE_MAP`), e.g.
 * `{"fable":{"ar":{"voiceId":"Hala","engine":"neural","languageCode":"ar-AE"}}}`: only the spec voices and
 * languages named change. A value that does not fit throws, so a bad setting fails at deploy or start.
 */
export function parseVoiceMap(json: string | undefined): VoiceMap {
  if (!json) return defaultVoiceMap;
  const raw = JSON.parse(json) as unknown;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('VOICE_MAP must be a JSON object');
  const map: Record<string, Record<SpeechLanguage, PollyVoice>> = { ...defaultVoiceMap };
  for (const [voice, languages] of Object.entries(raw)) {
    if (!isVoiceId(voice)) throw new Error(`VOICE_MAP: ${voice} is not a voice (${voiceIds.join(', ')})`);
    const merged = { ...map[voice]! };
    for (const [language, value] of Object.entries((languages ?? {}) as Record<string, unknown>)) {
      if (language !== 'ar' && language !== 'en') throw new Error(`VOICE_MAP: ${voice}.${language} is not a language (ar, en)`);
      const v = value as Partial<PollyVoice> | null;
      if (!v || typeof v.voiceId !== 'string' || typeof v.languageCode !== 'string' || !engines.includes(v.engine as string)) {
        throw new Error(`VOICE_MAP: ${voice}.${language} needs voiceId, languageCode and engine (${engines.join(', ')})`);
      }
      merged[language] = { voiceId: v.voiceId, engine: v.engine!, languageCode: v.languageCode };
    }
    map[voice] = merged;
  }
  return map;
}

export interface PollySpeechOptions {
  voiceMap?: VoiceMap;
  /** Characters per SynthesizeSpeech call; default 2,900, at most 3,000. */
  maxChars?: number;
  /** Retries of one call after throttling or a service failure (policies.throttling); default 4 (5 attempts). */
  retries?: number;
}

export function pollySpeech(client: PollyClient, options: PollySpeechOptions = {}): Speech {
  const voiceMap: VoiceMap = options.voiceMap ?? defaultVoiceMap;
  const maxChars = options.maxChars ?? pollyChunkChars;
  const retries = options.retries ?? policies.throttling.attempts - 1;
  if (!Number.isInteger(maxChars) || maxChars < 1 || maxChars > pollyMaxChars) {
    throw new RangeError(`maxChars must be an integer from 1 to ${pollyMaxChars}, got ${maxChars}`);
  }
  if (!Number.isInteger(retries) || retries < 0) throw new RangeError(`retries must be a non-negative integer, got ${retries}`);

  const throttling = { ...policies.throttling, attempts: retries + 1, retryable: isTransient };

  const synthesizeChunk = (input: SynthesizeSpeechCommandInput, voice: string): Promise<Uint8Array> =>
    retry(async () => {
      try {
        const out = await client.send(new SynthesizeSpeechCommand(input));
        if (!out.AudioStream) throw new Error('Polly returned no audio stream');
        return await out.AudioStream.transformToByteArray();
      } catch (error) {
        if (rejectsVoice(error)) throw Object.assign(new VoiceRejected(voice), { cause: error });
        throw error;
      }
    }, throttling);

  return {
    async synthesize({ text, voice, language }) {
      // Own properties only: the voice comes from a request body, and 'constructor' is not a voice.
      const voices = Object.hasOwn(voiceMap, voice) ? voiceMap[voice] : undefined;
      const polly = voices && Object.hasOwn(voices, language) ? voices[language] : undefined;
      if (!polly) throw new VoiceRejected(voice);
      const chunks = splitText(text, maxChars);
      if (chunks.length === 0) throw new Error('Nothing to synthesize: the text is empty');

      // One call at a time: a line's chunks must stay in order, and Polly's TPS limit is per account.
      const parts: Uint8Array[] = [];
      for (const chunk of chunks) {
        parts.push(
          await synthesizeChunk(
            {
              Text: chunk,
              TextType: 'text',
              OutputFormat: 'mp3',
              VoiceId: polly.voiceId,
              Engine: polly.engine,
              LanguageCode: polly.languageCode,
            },
            voice,
          ),
        );
      }
      return concatBytes(parts);
    },
  };
}

interface ServiceError {
  name?: string;
  message?: string;
  code?: string;
  $retryable?: unknown;
  $metadata?: { httpStatusCode?: number };
}

const voiceErrors = new Set([
  'InvalidParameterException',
  'ValidationException',
  'LanguageNotSupportedException',
  'EngineNotSupportedException',
]);

/** Polly refusing the voice (unknown id, or a language or engine it does not speak). */
function rejectsVoice(error: unknown): boolean {
  const e = error as ServiceError | null;
  return !!e && voiceErrors.has(e.name ?? '') && /voice/i.test(e.message ?? '');
}

const transientErrors = new Set([
  'ThrottlingException',
  'ServiceFailureException',
  'ServiceFailure',
  'ServiceUnavailableException',
  'TooManyRequestsException',
  'RequestTimeout',
  'TimeoutError',
]);
const transientCodes = new Set(['ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN']);

function isTransient(error: unknown): boolean {
  const e = error as ServiceError | null;
  if (!e) return false;
  const status = e.$metadata?.httpStatusCode ?? 0;
  return (
    transientErrors.has(e.name ?? '') || transientCodes.has(e.code ?? '') || !!e.$retryable || status === 429 || status >= 500
  );
}

function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
