// The API's send (POST /messages): the message, and in the same commit Welcome Bot's answer when it
// was written to it (kept apart from messages.ts, which Welcome Bot itself sends through).
import { writeCommand } from '../context.js';
import { sendMessage, type SendInput } from './messages.js';
import { answerWelcomeBotMessage } from './welcomeBot.js';

export const sendCommands = {
  // Every check comes before the first change (prepareMessage, then storeMessage).
  'messages.send': writeCommand((ctx, input: SendInput) => {
    const message = sendMessage(ctx, ctx.user, input);
    if (message.channelId === null) answerWelcomeBotMessage(ctx, message);
    return { id: message.id };
  }, { checksFirst: true }),
};
