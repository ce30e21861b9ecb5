import {
  CreatePlatformEndpointCommand,
  GetEndpointAttributesCommand,
  InvalidParameterException,
  NotFoundException,
  EndpointDisabledException,
  PublishCommand,
  SetEndpointAttributesCommand,
  type SNSClient,
} from '@aws-sdk/client-sns';
import { shortenToBytes } from '../../shorten.ts';
import type { Platform } from '../../notifications/devices.ts';
import type { Push, PushMessage } from '../../notifications/push.ts';

/**
 * SNS mobile push. Endpoint upkeep follows AWS's recommended flow: create when unknown (or deleted),
 * then re-enable and re-point an endpoint that SNS disabled or that carries another token.
 */
export function snsPush(client: SNSClient, applicationArns: Partial<Record<Platform, string>>): Push {
  async function create(applicationArn: string, token: string, userId: string): Promise<string> {
    try {
      const out = await client.send(
        new CreatePlatformEndpointCommand({ PlatformApplicationArn: applicationArn, Token: token, CustomUserData: userId }),
      );
      return out.EndpointArn!;
    } catch (error) {
      // The token already has an endpoint with other attributes: SNS names it in the message.
      const existing = error instanceof InvalidParameterException && /Endpoint (arn:\S+) already exists/.exec(error.message);
      if (existing && existing[1]) return existing[1];
      throw error;
    }
  }

  return {
    async register({ userId, platform, token, endpointId }) {
      const applicationArn = applicationArns[platform];
      if (!applicationArn) return null;
      let arn = endpointId ?? (await create(applicationArn, token, userId));
      let attributes: Record<string, string> | undefined;
      try {
        attributes = (await client.send(new GetEndpointAttributesCommand({ EndpointArn: arn }))).Attributes;
      } catch (error) {
        if (!(error instanceof NotFoundException)) throw error;
        arn = await create(applicationArn, token, userId);
        attributes = (await client.send(new GetEndpointAttributesCommand({ EndpointArn: arn }))).Attributes;
      }
      if (attributes?.Token !== token || attributes?.Enabled !== 'true') {
        await client.send(
          new SetEndpointAttributesCommand({ EndpointArn: arn, Attributes: { Token: token, Enabled: 'true', CustomUserData: userId } }),
        );
      }
      return arn;
    },

    async send(device, message) {
      if (!device.endpointId) return 'sent';
      try {
        await client.send(
          new PublishCommand({ TargetArn: device.endpointId, MessageStructure: 'json', Message: payload(device.platform, message) }),
        );
        return 'sent';
      } catch (error) {
        // SNS disables an endpoint whose token the platform rejected; a deleted endpoint has no device behind it either.
        if (error instanceof EndpointDisabledException || error instanceof NotFoundException) return 'disabled';
        throw error;
      }
    },
  };
}

/**
 * APNs and FCM refuse a payload over 4 KB; a notification's body may be 2,000 characters (8 KB of Arabic).
 * The alert shows the start of it (the whole is in the inbox), cut to fit with the ids beside it.
 */
export const maxAlertTitleBytes = 400;
export const maxAlertBodyBytes = 2_400;

/**
 * One message per transport, as SNS expects with MessageStructure json: the alert (title and body),
 * and the notification's id, type and `data` as the app's keys (FCM takes string values only; ours are).
 */
export function payload(platform: Platform, message: PushMessage): string {
  const alert = { title: shortenToBytes(message.title, maxAlertTitleBytes), body: shortenToBytes(message.body, maxAlertBodyBytes) };
  const data: Record<string, string> = { notificationId: message.notificationId, type: message.type, ...message.data };
  const apns = JSON.stringify({ aps: { alert, sound: 'default' }, ...data });
  const gcm = JSON.stringify({ fcmV1Message: { message: { notification: alert, data } } });
  return JSON.stringify({
    default: message.body,
    ...(platform === 'ios' ? { APNS: apns, APNS_SANDBOX: apns } : { GCM: gcm }),
  });
}
