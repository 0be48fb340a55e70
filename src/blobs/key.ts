// Blob keys are content addresses with an extension (`<sha256>.<ext>`): nothing else is accepted,
// so a key can never name a path outside the store.
export const BLOB_KEY = /^[0-9a-f]{64}\.[a-z0-9]{2,5}$/;

export function assertKey(key: string): void {
  if (!BLOB_KEY.test(key)) throw new Error(`invalid blob key ${JSON.stringify(key)}`);
}
