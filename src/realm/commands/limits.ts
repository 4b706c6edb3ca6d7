// Zulip's limits, which clients read from register (spec: Limits).

export const limits = {
  max_stream_name_length: 60,
  max_stream_description_length: 1024,
  max_topic_length: 60,
  max_message_length: 10000,
  max_channel_folder_name_length: 60,
  max_channel_folder_description_length: 1024,
};
