import { parseArgs } from 'node:util';
import { dynamoDocumentClient } from '../lib/adapters/aws/clients.ts';
import { readSecret } from '../lib/adapters/aws/secrets.ts';
import { dynamoUserStore } from '../lib/adapters/dynamo/users.ts';
import { maxTokenLifetimeSeconds, parseTokenLifetime, signToken } from '../lib/auth/tokens.ts';
import { workerAccount } from '../lib/auth/worker-account.ts';

/**
 * A bearer token for the OCR worker on AWS, when the stack verifies tokens with its generated secret
 * (no `jwksUrl`). Run with the operator's AWS credentials and the stack's outputs:
 *
 *   npx tsx scripts/worker-token.ts --table <TableName> --secret-arn <JwtSecretArn> [--user-id ID] [--expires-in SECONDS]
 *
 * Without `--user-id` it creates an editor account for the worker; the token (default and maximum
 * 30 days, lib/auth/tokens.ts) is the only thing on stdout, the account's id goes to stderr.
 */
const { values } = parseArgs({
  options: {
    table: { type: 'string' },
    'secret-arn': { type: 'string' },
    'user-id': { type: 'string' },
    'expires-in': { type: 'string' },
    issuer: { type: 'string' },
    audience: { type: 'string' },
  },
});

try {
  if (!values.table || !values['secret-arn']) throw new Error('--table and --secret-arn are required (the stack outputs TableName and JwtSecretArn)');
  const seconds = parseTokenLifetime(values['expires-in'], maxTokenLifetimeSeconds);
  const users = dynamoUserStore({ client: dynamoDocumentClient(), tableName: values.table });
  const user = await workerAccount(users, values['user-id'], new Date());
  const token = await signToken(await readSecret(values['secret-arn']), user.userId, seconds, {
    issuer: values.issuer,
    audience: values.audience,
  });
  console.error(`worker account ${user.userId} (${user.role})`);
  console.log(token);
} catch (error) {
  console.error(`worker-token: ${(error as Error).message}`);
  process.exitCode = 1;
}
