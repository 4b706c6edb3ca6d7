import { groupSetting } from './fragments.js';

export default {
  type: 'object',
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    members: { type: 'array', items: { type: 'integer' } },
    subgroups: { type: 'array', items: { type: 'integer' } },
    can_add_members_group: groupSetting,
    can_join_group: groupSetting,
    can_leave_group: groupSetting,
    can_manage_group: groupSetting,
    can_mention_group: groupSetting,
    can_remove_members_group: groupSetting,
  },
  required: ['name', 'description', 'members'],
  additionalProperties: false,
} as const;
