// GET /thumbnail: the image behind an inline image preview (rendered messages point their
// previews here). Parley keeps no copies of external images: it sends the client to the image.
import { errors } from '../errors.js';
import { Redirect, type UserRequest } from '../http/route.js';

export function thumbnail(_request: UserRequest, params: { url: string; size?: 'full' | 'thumbnail' }): Redirect {
  let url: URL;
  try {
    url = new URL(params.url);
  } catch {
    throw errors.badRequest('Invalid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw errors.badRequest('Invalid URL');
  return new Redirect(url.href);
}
