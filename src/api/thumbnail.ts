// GET /thumbnail: the image behind an inline image preview (rendered messages point their
// previews here). Parley keeps no copies of external images: it sends the client to the image.
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import { errors } from '../errors.js';
import { Redirect, type UserRequest } from '../http/route.js';

export function thumbnail(_request: UserRequest, params: Params<typeof schemas.getThumbnail>): Redirect {
  let url: URL;
  try {
    url = new URL(params.url);
  } catch {
    throw errors.badRequest('Invalid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw errors.badRequest('Invalid URL');
  return new Redirect(url.href);
}
