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

    async send(endpointId, platform, message) {
      try {
        await client.send(
          new PublishCommand({ TargetArn: endpointId, MessageStructure: 'json', Message: payload(platform, message) }),
        );
        return 'sent';
      } catch (error) {
        if (error instanceof EndpointDisabledException) return 'disabled';
        throw error;
      }
    },
  };
}

/** One message per transport, as SNS expects with MessageStructure json. */
export function payload(platform: Platform, message: PushMessage): string {
  const alert = { title: message.title, body: message.body };
  const apns = JSON.stringify({ aps: { alert, sound: 'default' }, ...message.data });
  const gcm = JSON.stringify({ fcmV1Message: { message: { notification: alert, data: message.data } } });
  return JSON.stringify({
    default: message.body,
    ...(platform === 'ios' ? { APNS: apns, APNS_SANDBOX: apns } : { GCM: gcm }),
  });
}
