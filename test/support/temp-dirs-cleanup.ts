/** Setup file of every test file (vitest.config.ts): its temporary directories go when it is done. */
import { afterAll } from 'vitest';
import { removeMadeTempDirs } from './temp-dirs.js';

afterAll(removeMadeTempDirs);
