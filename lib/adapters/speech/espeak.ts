import type { WasmMediaEncoder } from 'wasm-media-encoders';
import { VoiceRejected, type Speech } from '../../audio/speech.ts';
import { splitText } from '../../audio/text-chunks.ts';
import type { SpeechLanguage, VoiceId } from '../../audio/voices.ts';
import { onceAsync } from '../../lazy.ts';
import { logger } from '../../log.ts';

/**
 * Offline speech for the local runtime (docs/DESIGN.md section 7): eSpeak NG compiled to WebAssembly
 * (`@echogarden/espeak-ng-emscripten`) renders 16-bit PCM, and LAME compiled to WebAssembly
 * (`wasm-media-encoders`) encodes it to MP3 as it arrives. Real, robotic speech in Arabic and English.
 *
 * eSpeak NG is GPL-3.0: both packages are loaded with `import()` on first use, only from this module,
 * which only the local runtime imports; `infra/bundle.ts` marks them external so no Lambda bundle
 * contains them.
 *
 * One engine per process, created on first use and kept alive (loading its 24 MB of voice data takes
 * a few hundred milliseconds). The engine is stateful (current voice, rate, pitch, one synthesis
 * callback), so calls are served one at a time, in order.
 */

/** The eSpeak NG voice for each language: Arabic, and American English. */
export const espeakLanguages: Readonly<Record<SpeechLanguage, string>> = { ar: 'ar', en: 'en-us' };

export interface EspeakStyle {
  /** An eSpeak NG voice variant (`<language>+<variant>`): m1-m7 are male, f1-f4 female; none is the default. */
  variant: string | null;
  /** Base pitch, 0-100 (eSpeak's default 50). */
  pitch: number;
  /** Pitch range, 0-100: monotone to lively (default 50). */
  range: number;
  /** Speaking rate in words per minute, 80-450 (default 175). */
  rate: number;
}

/** How each spec voice (docs/SPEC.md 2.9) sounds here: a variant plus pitch, intonation and pace. */
export const espeakStyles = {
  alloy: { variant: null, pitch: 50, range: 50, rate: 170 }, // neutral and balanced
  echo: { variant: 'm3', pitch: 42, range: 45, rate: 160 }, // warm and steady
  fable: { variant: 'f1', pitch: 55, range: 85, rate: 175 }, // expressive: wide intonation
  onyx: { variant: 'm7', pitch: 25, range: 35, rate: 145 }, // deep, slow and authoritative
  nova: { variant: 'f3', pitch: 68, range: 60, rate: 195 }, // bright and quick
  shimmer: { variant: 'f4', pitch: 60, range: 30, rate: 155 }, // soft, even and clear
} as const satisfies Record<VoiceId, EspeakStyle>;

/**
 * Characters per synthesis call. A call blocks the event loop while eSpeak renders and LAME encodes
 * (roughly 1 s per 1,000 characters, about a minute of speech, on a small machine), so long text is
 * rendered in chunks with other work let through in between. Chunks end at sentence ends where they
 * can, so the joins fall where eSpeak pauses anyway. Memory stays small either way: samples are
 * encoded as they arrive.
 */
export const espeakChunkChars = 500;

/** MP3 settings: mono at the engine's rate (22,050 Hz), constant 48 kbit/s. */
const mp3Bitrate = 48;
const mp3SampleRates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000] as const;

// The package ships no type declarations; this is the part of its Emscripten/WebIDL API used here.
interface EspeakWorker {
  readonly samplerate: number;
  rate: number;
  pitch: number;
  range: number;
  /** 0 on success (espeak_ERROR). */
  set_voice(name: string): number;
  /** Synchronous; the callback gets each block of samples and returns true to abort. */
  synthesize(ssml: string, callback: (samples: Int16Array | null, events: unknown[]) => boolean): void;
}
interface EspeakModuleFactory {
  (moduleArg?: { print?: (text: string) => void; printErr?: (text: string) => void }): Promise<{
    eSpeakNGWorker: new () => EspeakWorker;
  }>;
}

interface Engine {
  worker: EspeakWorker;
  encoder: WasmMediaEncoder<'audio/mpeg'>;
  voice: string | undefined;
}

// A variable specifier: TypeScript does not look for the (missing) declarations of the package.
const espeakPackage: string = '@echogarden/espeak-ng-emscripten';

let queue: Promise<unknown> = Promise.resolve();

const loadEngine = onceAsync(async (): Promise<Engine> => {
  const [{ default: createEspeak }, { createMp3Encoder }] = await Promise.all([
    import(espeakPackage) as Promise<{ default: EspeakModuleFactory }>,
    import('wasm-media-encoders'),
  ]);
  // Emscripten's stdout and stderr: nothing is expected on either; a warning goes to the log.
  const espeak = await createEspeak({ print: () => {}, printErr: (text) => logger.warn('espeak-ng', { text }) });
  return { worker: new espeak.eSpeakNGWorker(), encoder: await createMp3Encoder(), voice: undefined };
});

/** Runs `task` after every task queued before it has settled: one synthesis at a time. */
function exclusive<T>(task: () => Promise<T>): Promise<T> {
  const run = queue.then(task, task);
  queue = run.catch(() => undefined);
  return run;
}

/** eSpeak reads its input as SSML with `[[phonemes]]`: the text is escaped so that it is read as text. */
const toEspeakInput = (text: string): string =>
  text
    .replace(/\p{Cc}/gu, (c) => (c === '\n' || c === '\t' || c === '\r' ? c : ' '))
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('[[', '[ [');

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export function espeakSpeech(): Speech {
  return {
    async synthesize({ text, voice, language }) {
      const style = Object.hasOwn(espeakStyles, voice) ? espeakStyles[voice as VoiceId] : undefined;
      const base = Object.hasOwn(espeakLanguages, language) ? espeakLanguages[language] : undefined;
      if (!style || !base) throw new VoiceRejected(voice);
      const chunks = splitText(text, espeakChunkChars);
      if (chunks.length === 0) throw new Error('Nothing to synthesize: the text is empty');
      const espeakVoice = style.variant ? `${base}+${style.variant}` : base;

      return exclusive(async () => {
        const current = await loadEngine();
        try {
          return await render(current, espeakVoice, style, chunks);
        } catch (error) {
          // A WebAssembly trap leaves the engine unusable: start a fresh one on the next call.
          if (error instanceof Error && error.name === 'RuntimeError') loadEngine.forget();
          throw error;
        }
      });
    },
  };
}

async function render(current: Engine, espeakVoice: string, style: EspeakStyle, chunks: string[]): Promise<Uint8Array> {
  const { worker, encoder } = current;
  if (current.voice !== espeakVoice) {
    current.voice = undefined;
    const status = worker.set_voice(espeakVoice);
    if (status !== 0) throw new Error(`espeak-ng: cannot load voice ${espeakVoice} (error ${status})`);
    current.voice = espeakVoice;
  }
  worker.pitch = style.pitch;
  worker.range = style.range;
  worker.rate = style.rate;

  const sampleRate = worker.samplerate;
  const outputSampleRate = mp3SampleRates.find((rate) => rate === sampleRate);
  encoder.configure({ channels: 1, sampleRate, bitrate: mp3Bitrate, ...(outputSampleRate ? { outputSampleRate } : {}) });

  const parts: Uint8Array[] = [];
  for (const [index, chunk] of chunks.entries()) {
    if (index > 0) await nextTurn();
    let failure: unknown;
    worker.synthesize(toEspeakInput(chunk), (samples) => {
      try {
        if (samples && samples.length > 0) {
          const pcm = new Float32Array(samples.length);
          for (let i = 0; i < samples.length; i++) pcm[i] = samples[i]! / 32768;
          // The encoder owns the returned bytes until its next call: copy them.
          parts.push(encoder.encode([pcm]).slice());
        }
        return false;
      } catch (error) {
        failure = error; // never throw through the WebAssembly frames; abort the synthesis instead
        return true;
      }
    });
    if (failure) throw failure;
  }
  parts.push(encoder.finalize().slice());

  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  if (out.length === 0) throw new Error('espeak-ng produced no audio');
  return out;
}
