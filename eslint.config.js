// Lint for the TypeScript tree: typescript-eslint's recommended rules (syntax only, so it stays
// fast), plus the size rule that keeps files small enough to read at a glance.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'reports/**',
      '.stryker-tmp/**',
      '**/*.js',
      '**/*.cjs',
      '**/*.mjs',
      'examples/**/www/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      // `any` appears where JSON of unknown shape is read in tests; product code avoids it.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // a `let` that callbacks read before its one assignment (shutdown paths) stays a let
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['proxy/**/*.ts', 'daemon/**/*.ts', 'cli/**/*.ts', 'shared/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      // A file longer than this says why at its top (eslint-disable max-lines -- reason).
      'max-lines': ['error', { max: 250, skipBlankLines: true, skipComments: true }],
    },
  },
);
