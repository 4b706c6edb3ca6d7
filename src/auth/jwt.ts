// JWT login (spec endpoint 8): verifies a token against the realm's configured key and returns
// the e-mail it names. Keys are prepared once per realm.
import { errors as jose, importSPKI, jwtVerify, type CryptoKey } from 'jose';
import type { JwtKey } from '../config.js';
import { ApiError, errors } from '../errors.js';

const prepared = new Map<JwtKey, Promise<CryptoKey | Uint8Array>>();

function keyFor(config: JwtKey): Promise<CryptoKey | Uint8Array> {
  let key = prepared.get(config);
  if (!key) {
    const [algorithm] = config.algorithms;
    key = algorithm === 'HS256' || algorithm === undefined ? Promise.resolve(new TextEncoder().encode(config.key)) : importSPKI(config.key, algorithm);
    prepared.set(config, key);
  }
  return key;
}

/** The `email` claim of a valid token; clear errors for everything else. */
export async function emailFromJwt(config: JwtKey | undefined, token: string): Promise<string> {
  if (!config) throw errors.badRequest('JWT authentication is not enabled for this organization');
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, await keyFor(config), { algorithms: config.algorithms }));
  } catch (error) {
    if (error instanceof jose.JWTExpired) throw errors.badRequest('Bad JSON web token: the token has expired');
    if (error instanceof jose.JWSSignatureVerificationFailed) throw errors.badRequest('Bad JSON web token: signature verification failed');
    if (error instanceof jose.JOSEError) throw errors.badRequest(`Bad JSON web token: ${error.message}`);
    throw error instanceof ApiError ? error : errors.badRequest('Bad JSON web token');
  }
  if (typeof payload.email !== 'string') throw errors.badRequest('No email specified in JSON web token claims');
  return payload.email;
}
