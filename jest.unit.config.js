/** The fast unit tests only (pure logic, no processes): what `npm run mutate` runs for each mutant. */
import base from './jest.config.js';

export default { ...base, roots: ['<rootDir>/test/unit'], testTimeout: 20000 };
