// ESLint flat config: typescript-eslint's recommended and type-aware rules, plus the layer
// boundaries (domain is pure; components import server code as types only, and share code with
// the server through lib/; repositories and db/ sit below the services).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

// Modules pure code (server/domain, lib/) may not import: frameworks, the database and Node I/O.
const FRAMEWORK_AND_IO_MODULES = [
  'next',
  'next/*',
  'react',
  'drizzle-orm',
  'drizzle-orm/*',
  'better-sqlite3',
  'node:*',
  'fs',
  'fs/*',
  // anchored: Node's `path` module only, not a directory of that name (server/domain/path)
  '/path',
  'os',
  'child_process',
  'net',
  'dns',
  'http',
  'https',
];

export default tseslint.config(
  {
    ignores: [
      '.next/**',
      'dist/**',
      '.next-*/**',
      'node_modules/**',
      'data/**',
      'test-results/**',
      'playwright-report/**',
      'next-env.d.ts',
      'db/migrations/**',
      'db/pg-migrations/**',
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
    // CommonJS: require() is how it reads server/http/static-security-headers.json
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Type-aware rules (typescript-eslint recommendedTypeChecked) on the TypeScript sources.
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.recommendedTypeCheckedOnly],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // React event handlers may be async; the promise is handled inside (mutations report errors).
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
    },
  },
  // Layer boundaries (README "Architecture"): each block says what a layer must not import.
  {
    files: ['server/domain/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@/db/*',
                '@/server/*',
                '!@/server/domain',
                '@/app/*',
                '@/components/*',
                '**/db/*',
                '**/services/*',
                '**/repositories/*',
                '**/scheduler/*',
                '**/integrations/*',
                '**/api/*',
              ],
              message:
                'server/domain is pure: it imports only other domain modules (no services, repositories, db, scheduler, integrations, app or components).',
            },
            {
              group: FRAMEWORK_AND_IO_MODULES,
              message: 'server/domain is pure: no frameworks or Node I/O (time and data are passed in).',
            },
          ],
        },
      ],
    },
  },
  {
    // No exceptions: code that both the browser and the server run lives in lib/, not server/.
    files: ['components/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@/db/**', '@/server/**', '**/../db/**', '**/../server/**'],
              allowTypeImports: true,
              message: 'Client code imports server code as types only; code shared with the server belongs in lib/.',
            },
          ],
        },
      ],
    },
  },
  {
    // lib/ is bundled into the browser and run on the server: pure, and below everything else.
    files: ['lib/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@/db/**',
                '@/server/**',
                '@/app/**',
                '@/components/**',
                '**/../db/**',
                '**/../server/**',
                '**/../app/**',
                '**/../components/**',
              ],
              allowTypeImports: true,
              message: 'lib/ runs in the browser and on the server: it imports other lib/ modules, and app types only.',
            },
            {
              group: FRAMEWORK_AND_IO_MODULES,
              message: 'lib/ is pure and browser-safe: no frameworks, database or Node I/O.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['app/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@/db/*', '@/server/services/*', '@/server/repositories/*', '@/server/scheduler/*', '@/server/integrations/*'],
              allowTypeImports: true,
              message: 'Pages reach the server through tRPC; they import server code as types only.',
            },
          ],
        },
      ],
    },
  },
  {
    // Services and the scheduler meet only at start-up (instrumentation.ts hands the loop its
    // collaborators; the services see the loop through SchedulerControl), so neither imports the other.
    files: ['server/services/**'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@/server/scheduler/*', '**/scheduler/*'],
              message: 'services do not import the scheduler: use SchedulerControl (server/services/scheduler-control.ts).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['server/scheduler/**'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@/server/services/*', '@/server/services/**'],
              allowImportNamePattern: '^(SchedulerControl|SchedulerRuntimeStatus|TickOutcome)$',
              message: 'the scheduler does not import services (types of its contracts aside): instrumentation.ts passes it what it needs.',
            },
          ],
        },
      ],
    },
  },
  {
    // Repositories are the only code that knows the database: no query builder or tables above them.
    files: [
      'server/services/**',
      'server/api/**',
      'server/auth/**',
      'server/scheduler/**',
      'server/integrations/**',
      'server/cli/**',
      'server/*.ts',
      'app/**/*.ts',
    ],
    ignores: ['**/*.test.ts', 'server/scheduler/test-fleet.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['drizzle-orm', 'drizzle-orm/*', '@/db/schema', '**/db/schema'],
              message: 'Queries live in server/repositories (withTransaction groups them); this layer calls repository functions.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['server/repositories/**'],
    ignores: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@/server/services/*',
                '@/server/api/*',
                '@/server/auth/*',
                '@/server/scheduler/*',
                '@/server/integrations/*',
                '@/server/cli/*',
                '**/services/*',
                '**/api/*',
                '**/cli/*',
              ],
              message:
                'Repositories only know the database (and the pure domain); services, auth, the scheduler and integrations call them, not the other way round.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['db/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@/server/*', '!@/server/env', '../server/*'],
              message:
                'db/ sits below every server layer: it knows the schema and how to open the database (settings from server/env). Scripts that seed or compose repositories live in server/cli.',
            },
          ],
        },
      ],
    },
  },
);
