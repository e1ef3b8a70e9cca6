// ESLint flat config: typescript-eslint's recommended rules plus the layer boundaries from
// docs (domain is pure; components never import server code except types).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

export default tseslint.config(
  {
    ignores: [
      '.next/**',
      '.next-*/**',
      'node_modules/**',
      'data/**',
      'test-results/**',
      'playwright-report/**',
      'next-env.d.ts',
      'db/migrations/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        performance: 'readonly',
        Buffer: 'readonly',
        __dirname: 'readonly',
        __filename: 'readonly',
        document: 'readonly',
        window: 'readonly',
        structuredClone: 'readonly',
        Response: 'readonly',
        Request: 'readonly',
        Headers: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        AbortController: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        navigator: 'readonly',
        Blob: 'readonly',
        crypto: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['**/*.tsx', 'components/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
  {
    files: ['next.config.js'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    files: ['server/domain/**'],
    // tests may read vectors and fixtures from disk
    ignores: ['server/domain/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@/db/*',
                '@/server/services/*',
                '@/server/repositories/*',
                '@/server/api/*',
                '@/server/scheduler/*',
                '@/server/integrations/*',
              ],
              message: 'server/domain is pure: no I/O layers.',
            },
            {
              group: ['next', 'next/*', 'react', 'drizzle-orm', 'drizzle-orm/*', 'better-sqlite3', 'node:*', 'fs', 'path', 'http', 'https'],
              message: 'server/domain is pure: no frameworks or Node I/O.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['components/**', 'app/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@/db/*', '@/server/services/*', '@/server/repositories/*', '@/server/scheduler/*', '@/server/integrations/*'],
              allowTypeImports: true,
              message: 'Client code imports server code as types only.',
            },
          ],
        },
      ],
    },
  },
);
