#!/usr/bin/env node
/**
 * The `amplifier` command's entry: turns on Node's compile cache (Node 22.1+)
 * before the CLI and the kernel are imported, then runs the CLI (main.ts).
 */
import module from 'node:module';
import { type CompileCacheApi, enableCompileCache } from './compile-cache.js';

enableCompileCache(module as CompileCacheApi);
await import('./main.js');
