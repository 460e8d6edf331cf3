/** plumb's version; kept in step with package.json by a test. */
export const VERSION = '0.1.0';

/** Where people read plumb's documentation (package.json `homepage`; kept in step by a test). */
export const HOMEPAGE = 'https://www.npmjs.com/package/plumb-gitops';
