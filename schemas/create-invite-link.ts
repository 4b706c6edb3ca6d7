import { inviteProperties } from './fragments.js';

export default { type: 'object', properties: inviteProperties, additionalProperties: false } as const;
