/** Preact's `h` through htm's tagged templates: JSX-like markup with no build step. Text is always escaped. */
import htmModule from 'htm';
import { h, type VNode } from 'preact';

// htm's types describe its CommonJS build (a namespace with `default`); the browser loads its ES module build.
const htm = htmModule as unknown as typeof import('htm')['default'];

export const html: (strings: TemplateStringsArray, ...values: unknown[]) => VNode = htm.bind(h) as never;
