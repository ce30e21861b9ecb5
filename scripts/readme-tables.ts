import { routes } from '../functions/routes.ts';
import { access, deployedFunctions, sizingOf } from '../infra/functions.ts';
import { isObjectAccess, objectAccessOf } from '../infra/permissions.ts';

/**
 * The docs' tables of routes (docs/architecture.md, "Routes") and of function sizes and grants (docs/operations.md,
 * "Functions", "Permissions"), printed from their sources (`npx tsx scripts/readme-tables.ts`). A unit test
 * (test/unit/readme.test.ts) checks that those docs carry exactly this text.
 */
export function routeTableMarkdown(): string {
  const lines = ['| method | path | function | auth |', '| --- | --- | --- | --- |'];
  for (const r of routes) lines.push(`| ${r.method} | \`${r.path}\` | \`${r.function}\` | ${r.auth} |`);
  return lines.join('\n');
}

/** Memory and timeout per function, as deployed. */
export function sizingTableMarkdown(): string {
  const lines = ['| function | memory | timeout |', '| --- | --- | --- |'];
  for (const name of deployedFunctions()) {
    const s = sizingOf(name);
    lines.push(`| \`${name}\` | ${s.memoryMb} MB | ${s.timeoutSeconds} s |`);
  }
  return lines.join('\n');
}

/** Each function's S3 grants: bucket, key prefix and actions (infra/permissions.ts). */
export function objectGrantsTableMarkdown(): string {
  const lines = ['| function | bucket | keys | actions |', '| --- | --- | --- | --- |'];
  for (const name of deployedFunctions()) {
    const { listed, prefixes } = objectAccessOf(access[name].filter(isObjectAccess));
    for (const bucket of listed) lines.push(`| \`${name}\` | ${bucket} | (bucket) | ListBucket (a missing key reads as 404, not 403) |`);
    for (const p of prefixes) lines.push(`| \`${name}\` | ${p.bucket} | \`${p.prefix}*\` | ${p.actions.map((a) => a.slice('s3:'.length)).join(', ')} |`);
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`${routeTableMarkdown()}\n\n${sizingTableMarkdown()}\n\n${objectGrantsTableMarkdown()}`);
}
