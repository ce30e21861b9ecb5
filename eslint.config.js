import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'dist/', '.local/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Domain modules stay free of cloud SDKs and HTTP (docs/DESIGN.md section 3).
    files: ['lib/**/*.ts'],
    ignores: ['lib/adapters/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@aws-sdk/*', '@middy/*', 'aws-lambda', 'stripe'], message: 'The domain knows nothing of AWS or HTTP: an adapter behind a port does.' },
            { group: ['**/functions/**', '**/infra/**'], message: 'The domain is called by the functions and the infrastructure, never the other way.' },
          ],
        },
      ],
    },
  },
  {
    // Handlers run the same on AWS and locally: the local runtime and CDK call them, not the other way.
    files: ['functions/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/infra/**'], message: 'Functions are deployed by infra, never import it.' }] }],
    },
  },
  {
    // The OCR worker is a client of the service (issue 13): it may share its types, published
    // limits and retry policies (lib/retry.ts, issue 16), never call its domain, handlers or infrastructure code.
    files: ['ocr-worker/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/functions/**', '**/infra/**'], message: 'The OCR worker is a client of the service: it calls the API, not its code.' },
            { regex: '(^|/)lib/(?!ocr/pages/page\\.ts$|retry\\.ts$)', allowTypeImports: true, message: 'Only types (and the page limits of lib/ocr/pages/page.ts, the retry policies of lib/retry.ts) from the service.' },
          ],
        },
      ],
    },
  },
);
