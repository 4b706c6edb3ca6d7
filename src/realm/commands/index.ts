// The command table of the realm actor: every command a realm understands, by name.
import { authCommands } from './auth.js';
import { callCommands } from './calls.js';
import { channelCommands } from './channels.js';
import { channelUpdateCommands } from './channelUpdate.js';
import { deletionCommands } from './deletion.js';
import { draftCommands } from './drafts.js';
import { editCommands } from './edits.js';
import { flagCommands } from './flags.js';
import { linkifierCommands } from './linkifiers.js';
import { folderCommands } from './folders.js';
import { groupCommands } from './groups.js';
import { userGroupCommands } from './userGroups.js';
import { lifecycleCommands } from './lifecycle.js';
import { profileFieldCommands } from './profileFields.js';
import { settingsCommands } from './settings.js';
import { statusCommands } from './status.js';
import { subscriptionSettingsCommands } from './subscriptionSettings.js';
import { userTopicCommands } from './userTopics.js';
import { userUpdateCommands } from './userUpdate.js';
import { messageCommands } from './messages.js';
import { realmCommands } from './realm.js';
import { pushCommands } from './push.js';
import { registerCommands } from './register.js';
import { scheduledCommands } from './scheduled.js';
import { userCommands } from './users.js';

export const commands = { ...authCommands, ...userCommands, ...registerCommands, ...channelCommands, ...messageCommands, ...groupCommands, ...lifecycleCommands, ...statusCommands, ...userUpdateCommands, ...profileFieldCommands, ...settingsCommands, ...subscriptionSettingsCommands, ...userTopicCommands, ...channelUpdateCommands, ...folderCommands, ...userGroupCommands, ...realmCommands, ...flagCommands, ...deletionCommands, ...editCommands, ...draftCommands, ...linkifierCommands, ...scheduledCommands, ...pushCommands, ...callCommands };

export type CommandName = keyof typeof commands;
export type InputOf<N extends CommandName> = Parameters<(typeof commands)[N]['run']>[1];
export type OutputOf<N extends CommandName> = ReturnType<(typeof commands)[N]['run']>;
