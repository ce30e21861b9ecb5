import type { SpeechLanguage, VoiceId } from './voices.ts';

/**
 * The Speech port: text to MP3. Amazon Polly on AWS; espeak-ng (WebAssembly) for the local runtime.
 * An adapter splits long text into chunks its provider accepts and joins the MP3 parts.
 */
export interface SpeechRequest {
  text: string;
  voice: VoiceId | string;
  language: SpeechLanguage;
}

export interface Speech {
  /** MP3 bytes. Throws VoiceRejected for a voice the provider does not have. */
  synthesize(request: SpeechRequest): Promise<Uint8Array>;
}

/** The provider refused the voice: an error for that field only. */
export class VoiceRejected extends Error {
  constructor(voice: string) {
    super(`Voice not available: ${voice}`);
    this.name = 'VoiceRejected';
  }
}
