import { VoiceRejected, type Speech, type SpeechRequest } from '../../../lib/audio/speech.ts';

/**
 * Speech in memory: "MP3" bytes that spell the request (`ID3` then `voice:language:text`), so a test
 * can read what was spoken. Voices in `rejected` throw VoiceRejected, as a provider without them does.
 */
export class FakeSpeech implements Speech {
  readonly requests: SpeechRequest[] = [];

  constructor(readonly rejected: ReadonlySet<string> = new Set()) {}

  async synthesize(request: SpeechRequest) {
    this.requests.push({ ...request });
    if (this.rejected.has(request.voice)) throw new VoiceRejected(request.voice);
    return new TextEncoder().encode(`ID3${request.voice}:${request.language}:${request.text}`);
  }
}
