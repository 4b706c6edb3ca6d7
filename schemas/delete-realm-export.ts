// DELETE /export/realm/{export_id}: Zulip serves it, its reference does not describe it.
export default {
  type: 'object',
  properties: { export_id: { type: 'integer' } },
  required: ['export_id'],
  additionalProperties: false,
} as const;
