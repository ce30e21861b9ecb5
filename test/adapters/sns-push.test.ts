import {
  CreatePlatformEndpointCommand,
  EndpointDisabledException,
  GetEndpointAttributesCommand,
  InvalidParameterException,
  NotFoundException,
  PublishCommand,
  SetEndpointAttributesCommand,
  SNSClient,
} from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { payload, snsPush } from '../../lib/adapters/push/sns.ts';

const iosApp = 'arn:aws:sns:us-east-1:123456789012:app/APNS/maktaba';
const endpoint = 'arn:aws:sns:us-east-1:123456789012:endpoint/APNS/maktaba/1111';
const sns = mockClient(SNSClient);
const push = snsPush(new SNSClient({ region: 'us-east-1' }), { ios: iosApp });
const device = { userId: 'u1', platform: 'ios' as const, token: 'apns-token', endpointId: null };

describe('SNS push adapter', () => {
  beforeEach(() => sns.reset());

  it('creates a platform endpoint for a new device', async () => {
    sns.on(CreatePlatformEndpointCommand).resolves({ EndpointArn: endpoint });
    sns.on(GetEndpointAttributesCommand).resolves({ Attributes: { Token: 'apns-token', Enabled: 'true' } });
    await expect(push.register(device)).resolves.toBe(endpoint);
    expect(sns.commandCalls(CreatePlatformEndpointCommand)[0]!.args[0].input).toMatchObject({
      PlatformApplicationArn: iosApp,
      Token: 'apns-token',
    });
    expect(sns.commandCalls(SetEndpointAttributesCommand)).toHaveLength(0);
  });

  it('re-enables an endpoint that SNS disabled', async () => {
    sns.on(GetEndpointAttributesCommand).resolves({ Attributes: { Token: 'apns-token', Enabled: 'false' } });
    await expect(push.register({ ...device, endpointId: endpoint })).resolves.toBe(endpoint);
    expect(sns.commandCalls(CreatePlatformEndpointCommand)).toHaveLength(0);
    expect(sns.commandCalls(SetEndpointAttributesCommand)[0]!.args[0].input).toMatchObject({
      EndpointArn: endpoint,
      Attributes: { Enabled: 'true', Token: 'apns-token' },
    });
  });

  it('creates a new endpoint when the stored one was deleted', async () => {
    const fresh = `${endpoint}-new`;
    sns
      .on(GetEndpointAttributesCommand, { EndpointArn: endpoint })
      .rejects(new NotFoundException({ message: 'Endpoint does not exist', $metadata: {} }));
    sns.on(GetEndpointAttributesCommand, { EndpointArn: fresh }).resolves({ Attributes: { Token: 'apns-token', Enabled: 'true' } });
    sns.on(CreatePlatformEndpointCommand).resolves({ EndpointArn: fresh });
    await expect(push.register({ ...device, endpointId: endpoint })).resolves.toBe(fresh);
  });

  it('adopts the endpoint SNS names when the token already has one with other attributes', async () => {
    sns.on(CreatePlatformEndpointCommand).rejects(
      new InvalidParameterException({
        message: `Invalid parameter: Token Reason: Endpoint ${endpoint} already exists with the same Token, but different attributes.`,
        $metadata: {},
      }),
    );
    sns.on(GetEndpointAttributesCommand).resolves({ Attributes: { Token: 'apns-token', Enabled: 'false' } });
    await expect(push.register(device)).resolves.toBe(endpoint);
    expect(sns.commandCalls(SetEndpointAttributesCommand)).toHaveLength(1);
  });

  it('registers nothing for a platform without an application ARN', async () => {
    await expect(push.register({ ...device, platform: 'android' })).resolves.toBeNull();
    expect(sns.calls()).toHaveLength(0);
  });

  it('publishes an APNS payload with the type and data, and reports a disabled or deleted endpoint', async () => {
    sns
      .on(PublishCommand)
      .resolvesOnce({ MessageId: 'm1' })
      .rejectsOnce(new EndpointDisabledException({ message: 'Endpoint is disabled', $metadata: {} }))
      .rejects(new NotFoundException({ message: 'Endpoint does not exist', $metadata: {} }));
    const phone = { ...device, endpointId: endpoint, active: true, createdAt: '', updatedAt: '' };
    const message = { notificationId: 'n1', type: 'ocr_completed' as const, title: 'Text ready', body: 'Done', data: { jobId: 'j1', bookTextId: 'b1' } };
    await expect(push.send(phone, message)).resolves.toBe('sent');
    const sent = JSON.parse(sns.commandCalls(PublishCommand)[0]!.args[0].input.Message!);
    expect(JSON.parse(sent.APNS)).toEqual({ aps: { alert: { title: 'Text ready', body: 'Done' }, sound: 'default' }, notificationId: 'n1', type: 'ocr_completed', jobId: 'j1', bookTextId: 'b1' });
    expect(sent.APNS_SANDBOX).toBe(sent.APNS);
    await expect(push.send(phone, message)).resolves.toBe('disabled');
    await expect(push.send(phone, message)).resolves.toBe('disabled');
  });

  it('cuts a long alert so each platform payload stays under the 4 KB APNs and FCM take', () => {
    const long = { notificationId: 'n1', type: 'announcement' as const, title: 'ع'.repeat(200), body: 'ب'.repeat(2_000), data: null };
    for (const platform of ['ios', 'android'] as const) {
      const sent = JSON.parse(payload(platform, long));
      const inner = platform === 'ios' ? sent.APNS : sent.GCM;
      expect(Buffer.byteLength(inner)).toBeLessThan(4_096);
      const alert = platform === 'ios' ? JSON.parse(inner).aps.alert : JSON.parse(inner).fcmV1Message.message.notification;
      expect(alert.body.endsWith('…')).toBe(true);
      expect(alert.body.startsWith('ببب')).toBe(true);
    }
  });

  it('builds an FCM payload for android: string data only', () => {
    const body = JSON.parse(payload('android', { notificationId: 'n1', type: 'announcement', title: 't', body: 'b', data: null }));
    expect(JSON.parse(body.GCM).fcmV1Message.message).toEqual({ notification: { title: 't', body: 'b' }, data: { notificationId: 'n1', type: 'announcement' } });
    expect(body.APNS).toBeUndefined();
  });
});
