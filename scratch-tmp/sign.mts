import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { SignatureV4 } from '@smithy/signature-v4';
import { createHash, createHmac } from 'node:crypto';
class Hash { h: any; constructor(secret?: any) { this.h = secret ? createHmac('sha256', secret) : createHash('sha256'); } update(d: any) { this.h.update(typeof d === 'string' ? Buffer.from(d) : d); } async digest() { return new Uint8Array(this.h.digest()); } }
const client = new S3Client({ region: 'us-east-1', endpoint: 'http://127.0.0.1:4569', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
const n = 20000;
let t = performance.now();
for (let i = 0; i < n; i++) await getSignedUrl(client, new GetObjectCommand({ Bucket: 'b', Key: `book/line${i}/arabic/alloy_abc.mp3`, ResponseContentType: 'audio/mpeg' }), { expiresIn: 3600 });
console.log('getSignedUrl µs/url', ((performance.now() - t) * 1000 / n).toFixed(0));
const signer = new SignatureV4({ service: 's3', region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, sha256: Hash as any, uriEscapePath: false, applyChecksum: false });
t = performance.now();
const now = new Date();
for (let i = 0; i < n; i++) await signer.presign(({ method: 'GET', protocol: 'http:', hostname: '127.0.0.1', port: 4569, path: `/b/book/line${i}/arabic/alloy_abc.mp3`, query: { 'response-content-type': 'audio/mpeg' }, headers: { host: '127.0.0.1:4569' } }) as any, { expiresIn: 3600, signingDate: now });
console.log('SignatureV4.presign µs/url', ((performance.now() - t) * 1000 / n).toFixed(0));
