import { describe, expect, it } from 'vitest';
import { errorResponse, messageStyle } from '../../functions/http/errors.ts';
import { badRequest, internal, notFound } from '../../lib/errors.ts';

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
