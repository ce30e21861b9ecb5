import { describe, expect, it } from 'vitest';
import { espeakSpeech } from '../../lib/adapters/speech/espeak.ts';
import { VoiceRejected } from '../../lib/audio/speech.ts';

/**
 * Walks an MP3 frame by frame (after an optional ID3v2 tag) and returns its duration; throws when a
 * frame header is invalid or the frames do not end exactly at the end of the bytes.
 */
function mp3Duration(bytes: Uint8Array): { frames: number; seconds: number } {
  let offset = 0;
  if (bytes[0] === 0x49 && bytes[1] === 0x44 && bytes[2] === 0x33) {
    offset = 10 + (((bytes[6]! & 0x7f) << 21) | ((bytes[7]! & 0x7f) << 14) | ((bytes[8]! & 0x7f) << 7) | (bytes[9]! & 0x7f));
  }
  const bitrates = {
    mpeg1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
    mpeg2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  };
  const rates = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] } as Record<number, number[]>;
  let frames = 0;
  let seconds = 0;
  while (offset < bytes.length) {
    const b1 = bytes[offset + 1]!;
    const b2 = bytes[offset + 2]!;
    if (bytes[offset] !== 0xff || (b1 & 0xe0) !== 0xe0) throw new Error(`no frame sync at byte ${offset}`);
    const version = (b1 >> 3) & 3; // 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5
    if (((b1 >> 1) & 3) !== 1) throw new Error(`not Layer III at byte ${offset}`);
    const mpeg1 = version === 3;
    const bitrate = (mpeg1 ? bitrates.mpeg1 : bitrates.mpeg2)[b2 >> 4];
    const sampleRate = rates[version]?.[(b2 >> 2) & 3];
    if (!bitrate || !sampleRate) throw new Error(`bad frame header at byte ${offset}`);
    const samples = mpeg1 ? 1152 : 576;
    offset += Math.floor(((samples / 8) * bitrate * 1000) / sampleRate) + ((b2 >> 1) & 1);
    frames += 1;
    seconds += samples / sampleRate;
  }
  if (offset !== bytes.length) throw new Error('truncated last frame');
  return { frames, seconds };
}

const startsLikeMp3 = (bytes: Uint8Array): boolean =>
  (bytes[0] === 0x49 && bytes[1] === 0x44 && bytes[2] === 0x33) || (bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0);

const english = 'The library opens at nine in the morning, and the reading room closes at six.';
const arabic = 'تفتح المكتبة أبوابها في التاسعة صباحا، وتغلق قاعة القراءة في السادسة مساء.';

describe('espeak-ng speech (local stand-in for Polly)', () => {
  const speech = espeakSpeech();

  it('speaks English and Arabic as MP3 whose duration follows the text', async () => {
    const en = await speech.synthesize({ text: english, voice: 'alloy', language: 'en' });
    const ar = await speech.synthesize({ text: arabic, voice: 'alloy', language: 'ar' });
    for (const mp3 of [en, ar]) {
      expect(mp3.length).toBeGreaterThan(1_000);
      expect(startsLikeMp3(mp3)).toBe(true);
      // Roughly 14 words: a few seconds of speech, not silence and not minutes.
      const { seconds } = mp3Duration(mp3);
      expect(seconds).toBeGreaterThan(2);
      expect(seconds).toBeLessThan(15);
    }

    const longer = await speech.synthesize({ text: `${english} ${english} ${english}`, voice: 'alloy', language: 'en' });
    expect(longer.length).toBeGreaterThan(2 * en.length);
    const ratio = mp3Duration(longer).seconds / mp3Duration(en).seconds;
    expect(ratio).toBeGreaterThan(2.5);
    expect(ratio).toBeLessThan(3.5);
  });

  it('gives the spec voices different sounds', async () => {
    const text = 'A slow deep voice and a bright quick voice read the same line.';
    const onyx = await speech.synthesize({ text, voice: 'onyx', language: 'en' });
    const nova = await speech.synthesize({ text, voice: 'nova', language: 'en' });
    const fable = await speech.synthesize({ text, voice: 'fable', language: 'en' });
    expect(Buffer.from(onyx).equals(Buffer.from(nova))).toBe(false);
    expect(Buffer.from(nova).equals(Buffer.from(fable))).toBe(false);
    // onyx speaks at 145 words a minute, nova at 195.
    expect(mp3Duration(onyx).seconds).toBeGreaterThan(1.15 * mp3Duration(nova).seconds);
  });

  it('rejects a voice that is not one of the six', async () => {
    await expect(speech.synthesize({ text: english, voice: 'marvin', language: 'en' })).rejects.toBeInstanceOf(VoiceRejected);
    await expect(speech.synthesize({ text: english, voice: 'constructor', language: 'en' })).rejects.toBeInstanceOf(VoiceRejected);
  });

  it('serves concurrent calls one at a time, each with its own voice and language', async () => {
    const [ar, en, alone] = await Promise.all([
      speech.synthesize({ text: arabic, voice: 'shimmer', language: 'ar' }),
      speech.synthesize({ text: english, voice: 'echo', language: 'en' }),
      espeakSpeech().synthesize({ text: 'Hello.', voice: 'nova', language: 'en' }),
    ]);
    for (const mp3 of [ar, en, alone]) {
      expect(startsLikeMp3(mp3)).toBe(true);
      expect(mp3Duration(mp3).seconds).toBeGreaterThan(0.3);
    }
    expect(mp3Duration(alone).seconds).toBeLessThan(mp3Duration(en).seconds);
  });

  it('reads markup and phoneme brackets as text, and long text in chunks', async () => {
    const marked = await speech.synthesize({ text: "Tom & Jerry <b>bold</b> [[h@l'oU]] said 5 > 3.", voice: 'echo', language: 'en' });
    expect(mp3Duration(marked).seconds).toBeGreaterThan(1);

    const long = `${english} `.repeat(12); // about 950 characters: two synthesis calls
    const mp3 = await speech.synthesize({ text: long, voice: 'echo', language: 'en' });
    const single = await speech.synthesize({ text: english, voice: 'echo', language: 'en' });
    const ratio = mp3Duration(mp3).seconds / mp3Duration(single).seconds;
    expect(ratio).toBeGreaterThan(9);
    expect(ratio).toBeLessThan(15);
  });

  it('refuses empty text', async () => {
    await expect(speech.synthesize({ text: '   ', voice: 'alloy', language: 'en' })).rejects.toThrow(/empty/);
  });
});
