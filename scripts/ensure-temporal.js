#!/usr/bin/env node
/**
 * `npm run ensure-temporal` (and `npm test`, `npm start` before they run): finds or installs the Temporal CLI
 * that runs the dev server. The one implementation lives with the dev-server launcher, in
 * `src/dev-server/ensure-temporal.js`, plain JavaScript so that it runs before anything is built.
 */
'use strict';

require('../src/dev-server/ensure-temporal.js').main();
