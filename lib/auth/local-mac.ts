import { createHmac } from 'node:crypto';
import { sameMac, type MacKey } from './job-credentials.ts';

/**
 * The local runtime's MacKey (and the tests'): HMAC-SHA-256 with a key derived from the local token
 * signing secret, so `npm start` needs nothing more; on AWS the key is in KMS (lib/adapters/aws/kms-mac.ts).
 */
export function localMacKey(secret: () => Promise<string>): MacKey {
  let key: Promise<Buffer> | undefined;
  const derived = () => (key ??= secret().then((s) => createHmac('sha256', s).update('maktaba job credentials v1').digest()));
  const mac = async (data: Uint8Array) => createHmac('sha256', await derived()).update(data).digest();
  return {
    sign: mac,
    verify: async (data, given) => sameMac(await mac(data), given),
  };
}
