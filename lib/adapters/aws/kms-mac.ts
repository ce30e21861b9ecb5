import { GenerateMacCommand, KMSClient, KMSInvalidMacException, VerifyMacCommand } from '@aws-sdk/client-kms';
import type { MacKey } from '../../auth/job-credentials.ts';
import { traced } from './tracing.ts';

/**
 * A KMS HMAC key (HMAC_256) as a MacKey: its material never leaves KMS, so no function holds it and
 * no one rotates it by hand; a credential lives only as long as its job's messages can.
 */
export function kmsMacKey(keyId: string, client: KMSClient = traced(new KMSClient({}))): MacKey {
  return {
    async sign(data) {
      const out = await client.send(new GenerateMacCommand({ KeyId: keyId, MacAlgorithm: 'HMAC_SHA_256', Message: data }));
      if (!out.Mac) throw new Error('KMS returned no MAC');
      return out.Mac;
    },
    async verify(data, mac) {
      try {
        const out = await client.send(new VerifyMacCommand({ KeyId: keyId, MacAlgorithm: 'HMAC_SHA_256', Message: data, Mac: mac }));
        return out.MacValid === true;
      } catch (error) {
        // KMS answers a wrong MAC with an exception; anything else (throttling, access) is our failure.
        if (error instanceof KMSInvalidMacException) return false;
        throw error;
      }
    },
  };
}
