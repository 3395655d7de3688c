// `node --import ./register-ts.mjs`: install ts-hooks.mjs. Test fixture only.
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
