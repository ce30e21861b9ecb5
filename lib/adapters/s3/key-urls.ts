import { createHash, createHmac } from 'node:crypto';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

/**
 * Presigned GET URLs for many keys of one bucket, in bounded CPU (issue 14). The SDK's
 * `getSignedUrl` costs about 0.4 ms a URL (a client middleware stack per call): a listing of
 * 18,708 files took seconds in signing alone. Here the SDK signs the first key, which gives the
 * bucket's address (virtual-hosted on AWS, path-style on the local stand-in) and every query
 * parameter but the signature, all shared by the listing (one signing time, one lifetime, one
 * credential). Each further key needs only its own signature: SigV4's canonical request for a
 * presigned S3 GET (AWS's "Authenticating Requests: Using Query Parameters"), hashed and signed with
 * the day's signing key. The first key is signed both ways and the two must agree, so a change in
 * the SDK's URLs falls back to the SDK for every key instead of handing out URLs S3 would refuse.
 */

/** RFC 3986 escaping of each key segment, as S3 and SigV4 expect ('/' kept). */
export const escapeKey = (key: string): string =>
  key
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');

const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();
const sha256Hex = (data: string): string => createHash('sha256').update(data, 'utf8').digest('hex');
const rfc3986 = (value: string) => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** What every URL of one listing shares, read off the SDK's URL of its first key. */
interface Shared {
  origin: string;
  basePath: string;
  host: string;
  /** The URL's query up to and after the signature's value. */
  queryBefore: string;
  queryAfter: string;
  canonicalQuery: string;
  amzDate: string;
  scope: string;
  signingKey: Buffer;
}

function shared(sdkUrl: string, firstKey: string, secretAccessKey: string): Shared | undefined {
  // Split by hand: a URL parser would resolve '.' and '..' segments of a key the SDK signed as they are.
  const hostAt = sdkUrl.indexOf('://') + 3;
  const pathAt = sdkUrl.indexOf('/', hostAt);
  const queryAt = sdkUrl.indexOf('?', pathAt);
  if (hostAt < 3 || pathAt === -1 || queryAt === -1) return undefined;
  const [origin, pathname, search] = [sdkUrl.slice(0, pathAt), sdkUrl.slice(pathAt, queryAt), sdkUrl.slice(queryAt)];
  const searchParams = new URLSearchParams(search);
  const params = [...searchParams];
  const get = (name: string) => searchParams.get(name) ?? '';
  const escaped = escapeKey(firstKey);
  // Only the form this code knows: SigV4, the host header alone signed, an unsigned payload.
  if (get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256' || get('X-Amz-SignedHeaders') !== 'host' || !pathname.endsWith(escaped)) return undefined;
  const [, date, region, service, terminator] = get('X-Amz-Credential').split('/');
  if (!date || !region || service !== 's3' || terminator !== 'aws4_request') return undefined;
  const signatureAt = search.indexOf('X-Amz-Signature=');
  const signatureEnd = search.indexOf('&', signatureAt);
  if (signatureAt === -1) return undefined;
  return {
    origin,
    basePath: pathname.slice(0, -escaped.length),
    host: origin.slice(hostAt),
    queryBefore: search.slice(0, signatureAt + 'X-Amz-Signature='.length),
    queryAfter: signatureEnd === -1 ? '' : search.slice(signatureEnd),
    canonicalQuery: params
      .filter(([name]) => name !== 'X-Amz-Signature')
      .map(([name, value]) => `${rfc3986(name)}=${rfc3986(value)}`)
      .sort()
      .join('&'),
    amzDate: get('X-Amz-Date'),
    scope: `${date}/${region}/${service}/aws4_request`,
    signingKey: hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), service), 'aws4_request'),
  };
}

function signedUrl(s: Shared, key: string): string {
  const path = `${s.basePath}${escapeKey(key)}`;
  const canonicalRequest = `GET\n${path}\n${s.canonicalQuery}\nhost:${s.host}\n\nhost\nUNSIGNED-PAYLOAD`;
  const stringToSign = `AWS4-HMAC-SHA256\n${s.amzDate}\n${s.scope}\n${sha256Hex(canonicalRequest)}`;
  const signature = createHmac('sha256', s.signingKey).update(stringToSign, 'utf8').digest('hex');
  return `${s.origin}${path}${s.queryBefore}${signature}${s.queryAfter}`;
}

/**
 * A signer of further keys like the SDK's URL `sdkUrl` of `firstKey`, or undefined when that URL is
 * not of the form this code signs, or signing `firstKey` here does not give the same URL.
 */
export function keySigner(sdkUrl: string, firstKey: string, secretAccessKey: string): ((key: string) => string) | undefined {
  const s = shared(sdkUrl, firstKey, secretAccessKey);
  return s && signedUrl(s, firstKey) === sdkUrl ? (key) => signedUrl(s, key) : undefined;
}

/** Keys signed between two turns of the event loop: about 15 ms of work. */
const signingSlice = 2_000;

export async function presignKeys(client: S3Client, bucket: string, keys: readonly string[], expiresIn: number): Promise<string[]> {
  if (keys.length === 0) return [];
  const signingDate = new Date();
  const sdk = (key: string) => getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn, signingDate });
  const first = await sdk(keys[0]!);
  const { secretAccessKey } = await client.config.credentials();
  const sign = keySigner(first, keys[0]!, secretAccessKey);
  if (!sign) return Promise.all(keys.map(sdk));
  // In slices, letting other work of the request (a query's next page) go on in between.
  const urls = [first];
  for (let i = 1; i < keys.length; i += signingSlice) {
    if (i > 1) await new Promise((resolve) => setImmediate(resolve));
    for (const key of keys.slice(i, i + signingSlice)) urls.push(sign(key));
  }
  return urls;
}
