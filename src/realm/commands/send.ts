// The API's send (POST /messages): the message, and in the same commit Welcome Bot's answer when it
// was written to it (kept apart from messages.ts, which Welcome Bot itself sends through).
import { writeCommand } from '../context.js';
import { prepareMessage, storeMessage, type SendInput } from './messages.js';
import { answerWelcomeBotMessage, writesToWelcomeBot } from './welcomeBot.js';

export const sendCommands = {
  // Every check comes before the first change (prepareMessage, then storeMessage, which takes the
  // IDs of both messages when Welcome Bot answers).
  'messages.send': writeCommand((ctx, input: SendInput) => {
    const prepared = prepareMessage(ctx, ctx.user, input);
    const answered = writesToWelcomeBot(ctx, ctx.user, prepared.participants);
    const message = storeMessage(ctx, ctx.user, prepared, input, { messages: answered ? 2 : 1 });
    if (answered) answerWelcomeBotMessage(ctx, message);
    return { id: message.id };
  }, { checksFirst: true }),
};
