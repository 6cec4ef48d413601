#!/usr/bin/env node
// `npx pgw` from the repository: the CLI's TypeScript run by tsx (already a dependency of `npm start`),
// with the workspace's tsconfig (whatever the working directory) so that `@pgw/sdk` resolves to
// libs/sdk/src. No build step to forget, and the CLI always speaks the SDK of the same commit.
'use strict';
const { join } = require('node:path');

process.env.TSX_TSCONFIG_PATH = join(__dirname, '..', '..', '..', 'tsconfig.json');
require('tsx/cjs/api').register();
require('../src/main.ts').runFromProcess();
