import { defaultableSettings } from './fragments.js';

export default { type: 'object', properties: defaultableSettings, additionalProperties: false } as const;
