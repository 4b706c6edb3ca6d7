// The web client, served from the root of the API's origin: its page at `/` and its hashed files
// at `/static/…` (the bundle `npm run build` writes to build/web).
import type * as schemas from '../../schemas/index.js';
import { errors } from '../errors.js';
import type { FileBody } from '../http/route.js';
import type { Params } from '../http/validation.js';
import { webAssets } from '../http/webAssets.js';

const found = (file: FileBody | undefined): FileBody => {
  if (!file) throw errors.notFound();
  return file;
};

export const getWebApp = (): FileBody => found(webAssets().page('index'));

export const getWebAsset = (_request: unknown, params: Params<typeof schemas.getWebAsset>): FileBody => found(webAssets().asset(params.file_name));
