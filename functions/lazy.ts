import { config } from '../lib/config.ts';
import type { Objects } from '../lib/objects.ts';

/**
 * A port whose adapter module is imported on first use. The bundles are split (infra/bundle.ts), so
 * an SDK that only some routes need (S3 for uploads and long texts, SQS for new jobs, Stripe for
 * overage) is loaded by the first request that needs it instead of by every cold start.
 * Only for ports whose members are all async methods.
 */
export function onFirstUse<T extends object>(load: () => Promise<T>): T {
  let loaded: Promise<T> | undefined;
  const target = () => (loaded ??= load().catch((error: unknown) => {
    loaded = undefined;
    throw error;
  }));
  return new Proxy({} as T, {
    get(_, name) {
      // Not a thenable: awaiting the port itself must not call `then` on the adapter.
      if (name === 'then') return undefined;
      return async (...args: unknown[]) => {
        const adapter = (await target()) as Record<string | symbol, (...a: unknown[]) => Promise<unknown>>;
        return adapter[name]!(...args);
      };
    },
  });
}

/**
 * A bucket's objects, with the S3 SDK loaded by the first request that touches a file; its GET URLs
 * signed for the media distribution when the stack has one (config.media), else presigned on S3.
 */
const bucketObjects = (bucket: string): Objects =>
  onFirstUse(async () => {
    const [{ s3Objects }, { s3Client }] = await Promise.all([import('../lib/adapters/s3/objects.ts'), import('../lib/adapters/aws/s3-client.ts')]);
    const objects = s3Objects(s3Client(), bucket);
    const media = config().media;
    if (!media) return objects;
    const { servedByDistribution } = await import('../lib/adapters/cloudfront/media-urls.ts');
    return servedByDistribution(objects, { urlBase: media.urlBase, keyPairId: media.keyPairId, privateKey: mediaSigningKey });
  });

let signingKey: Promise<string> | undefined;
/** The distribution's private key, read once per container; a failed read is tried again next time. */
const mediaSigningKey = (): Promise<string> =>
  (signingKey ??= import('../lib/adapters/aws/secrets.ts')
    .then(({ readSecret }) => readSecret(config().media!.signingKeySecretArn))
    .catch((error: unknown) => {
      signingKey = undefined;
      throw error;
    }));

export const uploadsBucket = bucketObjects;
export const audioBucket = bucketObjects;
