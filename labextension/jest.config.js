/**
 * Jest with ts-jest in jsdom: the API client with a fake request layer, the rendering and
 * the poll. The Lumino packages the code imports ship CommonJS builds, so nothing under
 * node_modules needs transforming. Times render in UTC so the expectations hold anywhere.
 */
process.env.TZ = 'UTC';

module.exports = {
  testEnvironment: 'jsdom',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }]
  },
  setupFiles: ['<rootDir>/jest.setup.js'],
  testRegex: 'src/__tests__/.*\\.spec\\.ts$',
  collectCoverageFrom: ['src/**/*.ts', '!src/**/*.d.ts', '!src/__tests__/**'],
  coverageReporters: ['text-summary'],
  restoreMocks: true
};
