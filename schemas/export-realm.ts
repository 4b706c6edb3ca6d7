export default {
  type: 'object',
  properties: { export_type: { type: 'integer', enum: [1, 2], default: 1 } },
  additionalProperties: false,
} as const;
