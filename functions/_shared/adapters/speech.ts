import { traced } from '../../../lib/adapters/aws/tracing.ts';
import type { Speech } from '../../../lib/audio/speech.ts';
import { config } from '../../../lib/config.ts';
import { onceAsync } from '../../../lib/lazy.ts';

/** Text to speech: Polly on AWS; espeak-ng locally (GPL-3.0, external in infra/bundle.ts, so no Lambda bundle carries it). */
export const speechAdapter = onceAsync(async (): Promise<Speech> => {
  if (config().adapters === 'local') {
    const { espeakSpeech } = await import('../../../lib/adapters/speech/espeak.ts');
    return espeakSpeech();
  }
  const [{ PollyClient }, { parseVoiceMap, pollySpeech }] = await Promise.all([import('@aws-sdk/client-polly'), import('../../../lib/adapters/speech/polly.ts')]);
  // The adapter retries throttling itself, with backoff; the SDK's own retries would multiply its attempts.
  return pollySpeech(traced(new PollyClient({ maxAttempts: 1 })), { voiceMap: parseVoiceMap(config().voiceMap) });
});
