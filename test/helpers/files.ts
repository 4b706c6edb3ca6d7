// Sending files as clients do (multipart/form-data) and fetching them back, for the upload tests.
import type { ApiClient } from './client.js';

export type Part = { field?: string; name: string; type?: string; bytes: Buffer | string };

/** POSTs the parts as a multipart form to an API path (default: POST /user_uploads). */
/** The smallest PNG: one transparent pixel. */
export const ONE_PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

export async function upload(client: ApiClient, parts: Part[], path = '/user_uploads') {
  const form = new FormData();
  for (const part of parts) form.append(part.field ?? 'file', new Blob([part.bytes], { type: part.type ?? '' }), part.name);
  const response = await fetch(`${client.baseUrl}/api/v1${path}`, { method: 'POST', headers: client.authHeader(), body: form });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** GETs a file by its URL path, with the client's credentials. */
export async function download(client: ApiClient, url: string) {
  const response = await fetch(`${client.baseUrl}${url}`, { headers: client.authHeader() });
  return { status: response.status, type: response.headers.get('content-type'), disposition: response.headers.get('content-disposition'), cache: response.headers.get('cache-control'), bytes: Buffer.from(await response.arrayBuffer()) };
}
