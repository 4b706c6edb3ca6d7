// The file itself is the multipart body (any one field name, as Zulip takes request.FILES' only
// value); it is streamed to the file storage, not validated here.
export default { type: 'object', properties: {}, additionalProperties: false } as const;
