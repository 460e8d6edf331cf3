// Lint runs as part of `npm test`. Type-aware rules catch the async mistakes that matter most in a
// tool that talks to an API: floating and misused promises.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'test/fixtures/**', 'src/generated/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  // The launcher is CommonJS (bin/package.json), so a cold start skips node's ES module loader.
  {
    files: ['bin/plumb.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // Import boundaries (docs/architecture.md). The engine runs whatever kinds commands/ hands it and
  // imports none; the emulator is a stand-in for the service and shares only the catalogue and small
  // utilities with the product; renderers read the public plan, nothing else.
  {
    files: ['src/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['**/resources', '**/resources/**'], message: 'The engine imports no resource kind: commands/ passes the kinds registry (src/resources/index.ts) in EngineOptions.kinds.' }],
      }],
    },
  },
  {
    files: ['src/emulator/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['../*', '!../catalogue', '!../catalogue/*', '!../util', '!../util/*'], message: 'The emulator imports product code only from catalogue/ and util/.' }],
      }],
    },
  },
  {
    files: ['src/render/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['../*', '!../engine', '../engine/*', '!../engine/plan.js', '!../engine/report.js', '!../util', '../util/*', '!../util/terminal.js', '!../util/html.js', '!../util/days.js'], message: 'Renderers read only the plan and report types (src/engine/plan.ts, src/engine/report.ts) and clean text with src/util/terminal.ts (escape it with src/util/html.ts for a page).' }],
      }],
    },
  },
);
