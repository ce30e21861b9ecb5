import {
  EngineNotSupportedException,
  LanguageNotSupportedException,
  PollyClient,
  ServiceFailureException,
  SynthesizeSpeechCommand,
  ThrottlingException,
  type SynthesizeSpeechCommandOutput,
} from '@aws-sdk/client-polly';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { defaultVoiceMap, parseVoiceMap, pollyChunkChars, pollySpeech } from '../../lib/adapters/speech/polly.ts';
import { VoiceRejected } from '../../lib/audio/speech.ts';
import { voiceIds } from '../../lib/audio/voices.ts';

const polly = mockClient(PollyClient);
// The region is explicit: workers inherit AWS_ENDPOINT_URL_* from the global setup, and the client is mocked.
const client = new PollyClient({ region: 'us-east-1' });

/** What Polly's AudioStream offers the adapter: the SDK's stream mixin reads the body to bytes. */
const audio = (...bytes: number[]): SynthesizeSpeechCommandOutput => ({
  AudioStream: { transformToByteArray: async () => Uint8Array.from(bytes) } as SynthesizeSpeechCommandOutput['AudioStream'],
  ContentType: 'audio/mpeg',
  RequestCharacters: 1,
  $metadata: {},
});

const inputs = () => polly.commandCalls(SynthesizeSpeechCommand).map((call) => call.args[0].input);

describe('Polly speech adapter', () => {
  beforeEach(() => polly.reset());

  it('maps every spec voice to a Polly voice per language', async () => {
    polly.on(SynthesizeSpeechCommand).resolves(audio(0xff, 0xf3));
    const speech = pollySpeech(client);
    for (const voice of voiceIds) {
      for (const language of ['ar', 'en'] as const) {
        await expect(speech.synthesize({ text: 'Hello. مرحبا', voice, language })).resolves.toEqual(Uint8Array.of(0xff, 0xf3));
      }
    }
    const sent = inputs();
    expect(sent).toHaveLength(voiceIds.length * 2);
    sent.forEach((input, i) => {
      const voice = voiceIds[Math.floor(i / 2)]!;
      const mapped = defaultVoiceMap[voice][i % 2 === 0 ? 'ar' : 'en'];
      expect(input).toEqual({
        Text: 'Hello. مرحبا',
        TextType: 'text',
        OutputFormat: 'mp3',
        VoiceId: mapped.voiceId,
        Engine: mapped.engine,
        LanguageCode: mapped.languageCode,
      });
    });
    expect(sent[0]).toMatchObject({ VoiceId: 'Hala', Engine: 'neural', LanguageCode: 'ar-AE' });
    expect(sent[1]).toMatchObject({ VoiceId: 'Joanna', Engine: 'neural', LanguageCode: 'en-US' });
  });

  it('gives each spec voice its own English voice and only Polly Arabic voices', () => {
    const english = voiceIds.map((v) => defaultVoiceMap[v].en.voiceId);
    expect(new Set(english).size).toBe(voiceIds.length);
    for (const v of voiceIds) {
      expect(['Zeina', 'Hala', 'Zayd']).toContain(defaultVoiceMap[v].ar.voiceId);
      expect(defaultVoiceMap[v].ar.engine).toBe(defaultVoiceMap[v].ar.voiceId === 'Zeina' ? 'standard' : 'neural');
    }
  });

  it('splits long text into chunks of at most 2,900 characters and joins the MP3 parts in order', async () => {
    polly
      .on(SynthesizeSpeechCommand)
      .resolvesOnce(audio(1, 1))
      .resolvesOnce(audio(2, 2, 2))
      .resolvesOnce(audio(3))
      .resolves(audio(9));
    const sentence = 'This line of the book is read aloud by the narrator. ';
    const text = sentence.repeat(Math.ceil(7_000 / sentence.length)).slice(0, 7_000);

    const mp3 = await pollySpeech(client).synthesize({ text, voice: 'echo', language: 'en' });

    const texts = inputs().map((input) => input.Text!);
    expect(pollyChunkChars).toBe(2_900);
    expect(texts).toHaveLength(3);
    for (const chunk of texts) expect(chunk.length).toBeLessThanOrEqual(2_900);
    expect(texts.join(' ').split(/\s+/)).toEqual(text.trim().split(/\s+/));
    expect(mp3).toEqual(Uint8Array.of(1, 1, 2, 2, 2, 3));
  });

  it('retries throttling and service failures, then succeeds', async () => {
    polly
      .on(SynthesizeSpeechCommand)
      .rejectsOnce(new ThrottlingException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 400 } }))
      .rejectsOnce(new ServiceFailureException({ message: 'Internal failure', $metadata: { httpStatusCode: 500 } }))
      .rejectsOnce(Object.assign(new Error('Too many requests'), { name: 'Unknown', $metadata: { httpStatusCode: 429 } }))
      .resolves(audio(7));
    await expect(pollySpeech(client).synthesize({ text: 'Hi.', voice: 'alloy', language: 'en' })).resolves.toEqual(Uint8Array.of(7));
    expect(inputs()).toHaveLength(4);
  });

  it('gives up after the configured retries', async () => {
    polly.on(SynthesizeSpeechCommand).rejects(new ThrottlingException({ message: 'Rate exceeded', $metadata: {} }));
    await expect(pollySpeech(client, { retries: 2 }).synthesize({ text: 'Hi.', voice: 'alloy', language: 'en' })).rejects.toBeInstanceOf(
      ThrottlingException,
    );
    expect(inputs()).toHaveLength(3);
  });

  it('turns Polly rejecting the voice into VoiceRejected, without retrying', async () => {
    polly
      .on(SynthesizeSpeechCommand)
      .rejectsOnce(new EngineNotSupportedException({ message: 'This voice does not support the selected engine: neural', $metadata: {} }))
      .rejectsOnce(new LanguageNotSupportedException({ message: 'Language ar-AE is not supported by voice Joanna', $metadata: {} }))
      .rejectsOnce(Object.assign(new Error("1 validation error detected: Value 'Nobody' at 'voiceId' failed to satisfy constraint"), {
        name: 'ValidationException',
      }));
    const speech = pollySpeech(client);
    for (let i = 0; i < 3; i++) {
      const error: unknown = await speech.synthesize({ text: 'Hi.', voice: 'nova', language: 'en' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(VoiceRejected);
      expect((error as VoiceRejected).message).toBe('Voice not available: nova');
      expect((error as VoiceRejected).cause).toHaveProperty('name');
    }
    expect(inputs()).toHaveLength(3);
  });

  it('passes on other client errors as they are', async () => {
    const invalid = Object.assign(new Error('Text is too long'), { name: 'TextLengthExceededException', $metadata: { httpStatusCode: 400 } });
    polly.on(SynthesizeSpeechCommand).rejects(invalid);
    await expect(pollySpeech(client).synthesize({ text: 'Hi.', voice: 'nova', language: 'en' })).rejects.toBe(invalid);
    expect(inputs()).toHaveLength(1);
  });

  it('rejects a voice the map does not have without calling Polly', async () => {
    const speech = pollySpeech(client);
    for (const voice of ['marvin', 'Alloy', 'constructor', '__proto__', '']) {
      await expect(speech.synthesize({ text: 'Hi.', voice, language: 'en' })).rejects.toBeInstanceOf(VoiceRejected);
    }
    const arabicOnly = pollySpeech(client, { voiceMap: { alloy: { ar: defaultVoiceMap.alloy.ar } as never } });
    await expect(arabicOnly.synthesize({ text: 'Hi.', voice: 'alloy', language: 'en' })).rejects.toBeInstanceOf(VoiceRejected);
    expect(polly.calls()).toHaveLength(0);
  });

  it('refuses empty text and a chunk size above what Polly bills per call', async () => {
    await expect(pollySpeech(client).synthesize({ text: '  \n ', voice: 'alloy', language: 'en' })).rejects.toThrow(/empty/);
    expect(polly.calls()).toHaveLength(0);
    expect(() => pollySpeech(client, { maxChars: 4_000 })).toThrow(RangeError);
  });
});

describe('the voice map setting (VOICE_MAP)', () => {
  it('changes only the voices and languages it names', () => {
    const map = parseVoiceMap('{"fable":{"ar":{"voiceId":"Hala","engine":"neural","languageCode":"ar-AE"}}}');
    expect(map.fable!.ar).toEqual({ voiceId: 'Hala', engine: 'neural', languageCode: 'ar-AE' });
    expect(map.fable!.en).toEqual(defaultVoiceMap.fable.en);
    expect(map.alloy).toEqual(defaultVoiceMap.alloy);
    expect(parseVoiceMap(undefined)).toBe(defaultVoiceMap);
  });

  it('refuses unknown voices, unknown languages and incomplete entries', () => {
    expect(() => parseVoiceMap('{"marvin":{}}')).toThrow(/marvin is not a voice/);
    expect(() => parseVoiceMap('{"alloy":{"fr":{"voiceId":"Lea","engine":"neural","languageCode":"fr-FR"}}}')).toThrow(/alloy\.fr/);
    expect(() => parseVoiceMap('{"alloy":{"ar":{"voiceId":"Hala","engine":"turbo","languageCode":"ar-AE"}}}')).toThrow(/alloy\.ar needs/);
    expect(() => parseVoiceMap('[]')).toThrow(/JSON object/);
  });

  it('is what the adapter speaks with', async () => {
    polly.reset();
    polly.on(SynthesizeSpeechCommand).resolves(audio(0xff, 0xf3));
    const speech = pollySpeech(client, { voiceMap: parseVoiceMap('{"fable":{"en":{"voiceId":"Arthur","engine":"neural","languageCode":"en-GB"}}}') });
    await speech.synthesize({ text: 'Hello', voice: 'fable', language: 'en' });
    expect(inputs()[0]).toMatchObject({ VoiceId: 'Arthur', LanguageCode: 'en-GB' });
  });
});
