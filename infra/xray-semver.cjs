// Stands in for `semver` in the Lambda bundles (infra/bundle.ts): only the X-Ray SDK's AWS SDK v2
// patcher uses it, and this project traces SDK v3 clients only.
module.exports = {
  gte() {
    throw new Error('AWS SDK v2 tracing is not bundled: trace SDK v3 clients with captureAWSv3Client');
  },
};
