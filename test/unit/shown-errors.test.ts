import { describe, expect, it } from 'vitest';
import { audioStyle, errorResponse, messageStyle, ocrStyle } from '../../functions/_shared/http/errors.ts';
import type { AudioJob, AudioJobStore } from '../../lib/audio/audio-job.ts';
import { failJob } from '../../lib/audio/jobs.ts';
import { badRequest, internal } from '../../lib/errors.ts';
import { FakeBookStore, fakeInbox } from '../support/fakes/index.ts';

/** Issue 12, finding 8: provider text (an AccessDenied names the account and role) goes to logs only. */
const providerError = Object.assign(
  new Error('User: arn:aws:sts::123456789012:assumed-role/maktaba-audio-worker/x is not authorized to perform: polly:SynthesizeSpeech'),
  { name: 'AccessDeniedException' },
);
const leaks = /arn:aws|123456789012|AccessDenied|polly:/;

describe('what callers read of a failure', () => {
  it('stores a failed audio job with our own words, never the SDK message', async () => {
    let stored: string | undefined;
    const audioJobs = {
      finish: async (_id: string, outcome: { status: string; error?: string }) => ((stored = outcome.error), true),
      get: async () => undefined,
    } as unknown as AudioJobStore;
    await failJob({ audioJobs, books: new FakeBookStore(), inbox: fakeInbox(() => new Date()).deps, now: () => new Date() }, 'job-1', providerError);
    expect(stored).toEqual(expect.any(String));
    expect(stored).not.toMatch(leaks);
  });

  it('keeps our own message when the domain failed the job', async () => {
    let stored: AudioJob['error'];
    const audioJobs = { finish: async (_id: string, o: { error?: string }) => ((stored = o.error), true), get: async () => undefined } as unknown as AudioJobStore;
    await failJob({ audioJobs, books: new FakeBookStore(), inbox: fakeInbox(() => new Date()).deps, now: () => new Date() }, 'job-1', internal('Book 1 no longer exists'));
    expect(stored).toBe('Book 1 no longer exists');
  });

  it('answers a 500 in every error style without the SDK message or its error name', () => {
    for (const style of [audioStyle, ocrStyle, messageStyle]) {
      const answer = errorResponse(providerError, style, 'Error generating audio');
      expect(answer.statusCode).toBe(500);
      expect(JSON.stringify(answer.body)).not.toMatch(leaks);
    }
    expect(errorResponse(badRequest('Invalid field or voice'), audioStyle, 'x').statusCode).toBe(400);
  });
});
