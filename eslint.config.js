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
    // Domain modules stay free of cloud SDKs and HTTP (DESIGN.md section 3).
    files: ['lib/**/*.ts'],
    ignores: ['lib/adapters/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['@aws-sdk/*', '@middy/*', 'aws-lambda', 'stripe'] }],
    },
  },
);
