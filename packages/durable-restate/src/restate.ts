/**
 * The Restate SDK, loaded after the `Promise.withResolvers` polyfill: every
 * file of this package takes the SDK from here, never from the package
 * directly, so the polyfill is in place on Node 20 before the SDK runs.
 */
import './promise-polyfill.js';

export * as restate from '@restatedev/restate-sdk';
