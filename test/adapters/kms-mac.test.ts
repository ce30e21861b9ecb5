import { GenerateMacCommand, KMSClient, KMSInvalidMacException, VerifyMacCommand } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { kmsMacKey } from '../../lib/adapters/aws/kms-mac.ts';
import { jobCredentials } from '../../lib/auth/job-credentials.ts';

const keyArn = 'arn:aws:kms:eu-west-1:123456789012:key/0f7c6d5e-4b3a-2c1d-0e9f-8a7b6c5d4e3f';
const kms = mockClient(KMSClient);
const key = kmsMacKey(keyArn, new KMSClient({ region: 'eu-west-1' }));
const grant = { jobId: '3f0c1c9e-8a4b-4c1e-9d7a-2b6f0e5a1c3d', userId: 'a'.repeat(24), fileId: 'b'.repeat(24), maxPages: 2000 };

describe('the KMS key that signs job credentials', () => {
  beforeEach(() => kms.reset());

  it('signs with GenerateMac (HMAC_SHA_256) on the key, and checks with VerifyMac', async () => {
    const mac = new Uint8Array(32).fill(7);
    kms.on(GenerateMacCommand).resolves({ Mac: mac, KeyId: keyArn, MacAlgorithm: 'HMAC_SHA_256' });
    kms.on(VerifyMacCommand).resolves({ MacValid: true, KeyId: keyArn, MacAlgorithm: 'HMAC_SHA_256' });
    const credentials = jobCredentials(key);
    const credential = await credentials.issue(grant, new Date());
    expect(kms.commandCalls(GenerateMacCommand)[0]!.args[0].input).toMatchObject({ KeyId: keyArn, MacAlgorithm: 'HMAC_SHA_256' });
    expect(await credentials.verify(credential, new Date())).toMatchObject(grant);
    const verified = kms.commandCalls(VerifyMacCommand)[0]!.args[0].input;
    expect(verified).toMatchObject({ KeyId: keyArn, MacAlgorithm: 'HMAC_SHA_256' });
    expect(Buffer.from(verified.Mac!)).toEqual(Buffer.from(mac));
    // The same credential again (a job's next page): answered from memory, no second KMS call.
    await credentials.verify(credential, new Date());
    expect(kms.commandCalls(VerifyMacCommand)).toHaveLength(1);
  });

  it('reads KMS refusing a MAC as a credential that grants nothing, and any other KMS failure as its own', async () => {
    kms.on(GenerateMacCommand).resolves({ Mac: new Uint8Array(32) });
    const credential = await jobCredentials(key).issue(grant, new Date());
    kms.on(VerifyMacCommand).rejects(new KMSInvalidMacException({ message: 'invalid', $metadata: {} }));
    expect(await jobCredentials(key).verify(credential, new Date())).toBeUndefined();
    kms.on(VerifyMacCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
    await expect(jobCredentials(key).verify(credential, new Date())).rejects.toThrow('Rate exceeded');
  });
});
