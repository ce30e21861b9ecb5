import { getSignedUrl } from '@aws-sdk/cloudfront-signer';
import { keysUnder, type Objects } from '../../objects.ts';
import { escapeKey } from '../s3/key-urls.ts';

/** The media distribution (infra/media.ts): its URL, the key group's key id, and the private key. */
export interface MediaDistribution {
  /** `https://<distribution domain>`, no trailing slash; a URL path is the object's key. */
  urlBase: string;
  keyPairId: string;
  /** The PEM private key, read once per container (Secrets Manager). */
  privateKey: () => Promise<string>;
}

/**
 * A bucket's objects with their GET URLs signed for the media distribution instead of presigned on
 * S3 (issue 14). A CloudFront URL lives as long as it was signed for, however short-lived the
 * function's own credentials are; it is shorter (about 500 characters, 700 with a policy, against
 * S3's 1,700 with session credentials), and a listing's URLs share their query, which compression
 * all but removes; and the edge caches the object, so a popular line costs no S3 request per play.
 *
 * Many keys under one prefix share one custom policy for `<prefix>*`: one RSA signature per listing
 * (about 1 ms) instead of one per URL. That policy admits every object under the prefix (a book's
 * audio, a job's page images) until it expires; callers grant only prefixes the caller may read
 * whole. Objects answer with the type and disposition stored on them, not per URL.
 */
export function servedByDistribution(objects: Objects, media: MediaDistribution): Objects {
  const urlOf = (key: string) => `${media.urlBase}/${escapeKey(key)}`;
  const until = (seconds: number) => Math.floor(Date.now() / 1000) + Math.max(1, Math.floor(seconds));
  return {
    ...objects,

    async presignGet(key, expiresInSeconds) {
      return getSignedUrl({ url: urlOf(key), keyPairId: media.keyPairId, privateKey: await media.privateKey(), dateLessThan: new Date(until(expiresInSeconds) * 1000) });
    },

    async presignGetAll(prefix, keys, expiresInSeconds) {
      keysUnder(prefix, keys);
      if (keys.length === 0) return [];
      const resource = `${urlOf(prefix)}*`;
      const policy = JSON.stringify({ Statement: [{ Resource: resource, Condition: { DateLessThan: { 'AWS:EpochTime': until(expiresInSeconds) } } }] });
      const signed = getSignedUrl({ url: resource, keyPairId: media.keyPairId, privateKey: await media.privateKey(), policy });
      const query = signed.slice(signed.indexOf('?'));
      return keys.map((key) => `${urlOf(key)}${query}`);
    },
  };
}
