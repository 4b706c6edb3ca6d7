// Sealed boxes (libsodium's crypto_box_seal): a notification only the device's private key opens.
import sodium from 'libsodium-wrappers';

await sodium.ready;

const PUBLIC_KEY_BYTES = 32;

/** The key's bytes if it is standard base64 of a 32-byte NaCl public key. */
export function decodePublicKey(base64: string): Uint8Array | undefined {
  try {
    const bytes = sodium.from_base64(base64, sodium.base64_variants.ORIGINAL);
    return bytes.length === PUBLIC_KEY_BYTES ? bytes : undefined;
  } catch {
    return undefined;
  }
}

export const isBase64 = (text: string): boolean => {
  try {
    sodium.from_base64(text, sodium.base64_variants.ORIGINAL);
    return text.length > 0;
  } catch {
    return false;
  }
};

/** `payload` as JSON, sealed to `publicKey` (base64), as base64. */
export function seal(payload: object, publicKey: Uint8Array): string {
  const sealed = sodium.crypto_box_seal(new TextEncoder().encode(JSON.stringify(payload)), publicKey);
  return sodium.to_base64(sealed, sodium.base64_variants.ORIGINAL);
}
