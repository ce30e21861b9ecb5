import { config } from '../../lib/config.ts';
import { onceAsync, onFirstUse } from '../../lib/lazy.ts';
import type { Objects } from '../../lib/objects.ts';

/**
 * A bucket's objects (the uploads or the audio bucket), with the S3 SDK loaded by the first request
 * that touches a file; its GET URLs signed for the media distribution when the stack has one
 * (config.media), else presigned on S3.
 */
export const bucketObjects = (bucket: string): Objects =>
  onFirstUse(async () => {
    const [{ s3Objects }, { s3Client }] = await Promise.all([import('../../lib/adapters/s3/objects.ts'), import('../../lib/adapters/aws/s3-client.ts')]);
    const objects = s3Objects(s3Client(), bucket);
    const media = config().media;
    if (!media) return objects;
    const { servedByDistribution } = await import('../../lib/adapters/cloudfront/media-urls.ts');
    return servedByDistribution(objects, { urlBase: media.urlBase, keyPairId: media.keyPairId, privateKey: mediaSigningKey });
  });

/** The distribution's private key, read once per container. */
const mediaSigningKey = onceAsync(async () => {
  const { readSecret } = await import('../../lib/adapters/aws/secrets.ts');
  return readSecret(config().media!.signingKeySecretArn);
});
