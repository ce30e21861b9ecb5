import { httpFunctions, type FunctionName } from '../../functions/routes.ts';
import type { LambdaHttpHandler } from './server.ts';

/** Loads every HTTP function's handler module, the same modules the bundles are built from. */
export async function loadHttpHandlers(): Promise<Record<FunctionName, LambdaHttpHandler>> {
  const entries = await Promise.all(
    httpFunctions().map(async (name) => {
      const module = (await import(`../../functions/${name}/handler.ts`)) as { handler: LambdaHttpHandler };
      return [name, module.handler] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<FunctionName, LambdaHttpHandler>;
}
