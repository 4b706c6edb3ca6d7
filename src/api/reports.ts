// Reporting a message to the organization's moderators (Zulip's message reports).
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import type { UserRequest } from '../http/route.js';

export const reportMessage = (request: UserRequest, params: Params<typeof schemas.reportMessage>) =>
  request.realm.ask('reports.send', request.user.userId, { messageId: params.message_id, reportType: params.report_type, description: params.description ?? '' });
