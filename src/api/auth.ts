// Unauthenticated API-key fetches.
import type { PublicRequest } from '../http/route.js';

export const devFetchApiKey = (request: PublicRequest, params: { username: string }) =>
  request.realm.ask('auth.devFetchApiKey', null, { username: params.username });
