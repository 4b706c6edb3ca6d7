// GET /dev_list_users (development only): Zulip's list of the people a developer may log in as.
export default { type: 'object', properties: {}, additionalProperties: false } as const;
