import { describe, expect, it } from 'vitest';
import { audioStyle, errorResponse, isLogged, messageStyle, ocrStyle } from '../../functions/_shared/http/errors.ts';
import { badRequest, DomainError, internal, notFound } from '../../lib/errors.ts';
import { UploadRejected } from '../../lib/ocr/jobs/upload-rules.ts';

const body = (error: unknown) => {
  const response = errorResponse(error, messageStyle, 'Error fetching notifications');
  return { status: response.statusCode, body: JSON.parse(String(response.body)) };
};

describe('error responses of the notifications group', () => {
  it('answers domain errors with their status and message', () => {
    expect(body(badRequest('Token is required'))).toEqual({ status: 400, body: { message: 'Token is required' } });
    expect(body(notFound('Notification not found'))).toEqual({ status: 404, body: { message: 'Notification not found' } });
  });

  it('answers 500 with the operation text and our own detail', () => {
    expect(body(internal('Invalid notification id: "x"'))).toEqual({
      status: 500,
      body: { message: 'Error fetching notifications', error: 'Invalid notification id: "x"' },
    });
  });

  it('never shows a client the message or the name of an unexpected error: SDK words go to the logs only', () => {
    const sdkError = Object.assign(
      new Error('User: arn:aws:sts::123456789012:assumed-role/fn is not authorized to perform: dynamodb:Query'),
      { name: 'AccessDeniedException' },
    );
    const response = body(sdkError);
    expect(response).toEqual({ status: 500, body: { message: 'Error fetching notifications', error: 'Unexpected error' } });
    expect(JSON.stringify(response)).not.toMatch(/123456789012|AccessDenied|Exception/);
  });
});

describe('errors that carry their answer', () => {
  it('answers a plain-text error in plain text, whatever the group, and a fields error with its fields', () => {
    const refused = new DomainError('forbidden', 'Forbidden: Invalid token', { body: 'plain-text' });
    for (const style of [messageStyle, ocrStyle, audioStyle]) {
      expect(errorResponse(refused, style, 'unused')).toMatchObject({ statusCode: 403, body: 'Forbidden: Invalid token', headers: { 'content-type': 'text/plain; charset=utf-8' } });
    }
    const paywall = new DomainError('payment_required', 'Subscribe', { body: 'fields', fields: { requiresSubscription: true } });
    expect(JSON.parse(String(errorResponse(paywall, audioStyle, 'unused').body))).toEqual({ requiresSubscription: true, message: 'Subscribe' });
    expect(errorResponse(new UploadRejected('Invalid file type: text/plain'), ocrStyle, 'Error creating OCR job')).toMatchObject({ statusCode: 500, body: 'Invalid file type: text/plain' });
  });

  it('logs our own failures and unexpected errors, not a client’s refused file nor a 4xx', () => {
    expect(isLogged(internal('Subscription could not be verified'))).toBe(true);
    expect(isLogged(new Error('socket hang up'))).toBe(true);
    expect(isLogged(new UploadRejected('File too large'))).toBe(false);
    expect(isLogged(badRequest('Token is required'))).toBe(false);
  });
});
