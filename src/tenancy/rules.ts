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

/** Refuses with every fault found, if any. */
export function refuseFaults(faults: FieldError[]): void {
  if (faults.length > 0) throw validationFailed(faults);
}
