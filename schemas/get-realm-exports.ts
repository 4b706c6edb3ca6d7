export default { type: 'object', properties: {}, additionalProperties: false } as const;
