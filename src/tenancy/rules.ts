// The tenancy face's input rules, pure: what a name, a time zone, a guid may be. Every fault is
// collected, and one 400 names them all.
import { validationFailed, type FieldError } from '../errors.ts';

// Printable, no spaces or control characters: identifiers travel in JSON bodies, URLs and logs.
const GUID = /^[\x21-\x7e]{1,20}$/;

export const isGuid = (value: unknown): boolean => typeof value === 'string' && GUID.test(value);
export const GUID_RULE = 'must be 1–20 printable characters without spaces';

export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(value) || value === 'UTC';
  } catch {
    return false;
  }
}

/** Records a fault unless the value is 1–max printable characters. */
export function requireText(faults: FieldError[], path: string, value: unknown, max: number): value is string {
  if (typeof value !== 'string' || value.trim().length === 0 || value.length > max || /[\x00-\x1f\x7f]/.test(value)) {
    faults.push({ path, message: `must be 1–${max} printable characters` });
    return false;
  }
  return true;
}

/** An optional text: null when absent or blank, else trimmed; a fault unless it is printable and ≤ max. */
export function optionalText(faults: FieldError[], path: string, value: unknown, max: number): string | null {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return null;
  if (typeof value !== 'string' || value.length > max || /[\x00-\x1f\x7f]/.test(value)) {
    faults.push({ path, message: `must be at most ${max} printable characters` });
    return null;
  }
  return value.trim();
}

/**
 * The first street line of a facility write: `addressLine1`, or `addressLine`, its deprecated alias
 * (shipped before the address had two lines). Absent, null and blank mean "not sent" for either,
 * because generated clients (.NET's among them) send every property of their model, null when unset:
 * a client that knows both names sends the alias as null. When both carry text they must say the same
 * (after trimming), else a fault names `addressLine` — the deprecated one, which the client should
 * stop sending; one line is never silently chosen over the other.
 */
export function firstAddressLine(
  faults: FieldError[],
  input: { addressLine1?: unknown; addressLine?: unknown },
  max: number,
): string | null {
  const line1 = optionalText(faults, 'addressLine1', input.addressLine1, max);
  const alias = optionalText(faults, 'addressLine', input.addressLine, max);
  if (line1 !== null && alias !== null && line1 !== alias) {
    faults.push({
      path: 'addressLine',
      message: 'is the deprecated alias of addressLine1 and differs from it: send addressLine1 alone',
    });
    return null;
  }
  return line1 ?? alias;
}

/** Refuses with every fault found, if any. */
export function refuseFaults(faults: FieldError[]): void {
  if (faults.length > 0) throw validationFailed(faults);
}
