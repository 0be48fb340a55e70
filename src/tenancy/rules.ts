// The tenancy face's input rules, pure: what a name, a time zone, a guid, a facility's gate-code rules
// may be. Every fault is collected, and one 400 names them all.
import { validationFailed, type FieldError } from '../errors.ts';
import type { AccessCodeRules } from '../http/caller.ts';

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

// ---- a facility's gate-code rules (SPEC §1 accessCodeRules) ----

export const ACCESS_CODE_CHARACTERS = [
  'digits',
  'alphanumeric',
] as const satisfies readonly AccessCodeRules['characters'][];
/**
 * The lengths a rule may name. 16 is the widest code the service takes (the schema's bound of
 * accessCode); 1 keeps the codes stored before rules existed (1–10 digits) within some rule.
 */
export const ACCESS_CODE_LENGTH = { min: 1, max: 16 } as const;
/** What every facility starts with, those created before the rules existed included (0013). */
export const DEFAULT_ACCESS_CODE_RULES: AccessCodeRules = { characters: 'digits', minLength: 4, maxLength: 10 };

/** The rules as a write sends them: any sub-field may be left out; a length may come as digits (the command line). */
export interface AccessCodeRulesInput {
  characters?: string;
  minLength?: number | string;
  maxLength?: number | string;
}

const LENGTH_RULE = `must be a whole number from ${ACCESS_CODE_LENGTH.min} to ${ACCESS_CODE_LENGTH.max}`;

/** A length as sent, or null when it is not a whole number within ACCESS_CODE_LENGTH. */
function lengthOf(value: number | string): number | null {
  const length = typeof value === 'string' && /^[0-9]{1,3}$/.test(value) ? Number(value) : value;
  return typeof length === 'number' &&
    Number.isInteger(length) &&
    length >= ACCESS_CODE_LENGTH.min &&
    length <= ACCESS_CODE_LENGTH.max
    ? length
    : null;
}

/**
 * The rules a write asks for: each sub-field sent replaces that of `base` (the default when a facility
 * is created, its own rules when it is changed). A fault names the sub-field (`accessCodeRules.maxLength`).
 * A minimum above the maximum names the one sent — maxLength when both were: it is the bound the
 * operator just gave that contradicts the other.
 */
export function accessCodeRulesOf(
  faults: FieldError[],
  input: AccessCodeRulesInput | undefined,
  base: AccessCodeRules,
): AccessCodeRules {
  const rules = { ...base };
  if (input === undefined) return rules;
  if (input.characters !== undefined) {
    if ((ACCESS_CODE_CHARACTERS as readonly string[]).includes(input.characters)) {
      rules.characters = input.characters as AccessCodeRules['characters'];
    } else {
      faults.push({ path: 'accessCodeRules.characters', message: `must be ${ACCESS_CODE_CHARACTERS.join(' or ')}` });
    }
  }
  let lengthsValid = true;
  for (const field of ['minLength', 'maxLength'] as const) {
    const sent = input[field];
    if (sent === undefined) continue;
    const length = lengthOf(sent);
    if (length === null) {
      faults.push({ path: `accessCodeRules.${field}`, message: LENGTH_RULE });
      lengthsValid = false;
    } else rules[field] = length;
  }
  if (lengthsValid && rules.minLength > rules.maxLength) {
    faults.push(
      input.maxLength !== undefined
        ? { path: 'accessCodeRules.maxLength', message: `must be at least minLength (${rules.minLength})` }
        : { path: 'accessCodeRules.minLength', message: `must be at most maxLength (${rules.maxLength})` },
    );
  }
  return rules;
}

/**
 * The prefixes of the credentials tenancy makes: a sandbox's (an account with an owner, src/sandbox/) differ,
 * so that a sandbox secret is recognisable at a glance — in a PMS's configuration, a log, a secret scanner.
 */
export const CREDENTIAL_PREFIXES = {
  production: { accountKey: 'key', accountSecret: 'gh_as', gatewayClient: 'gwc', gatewaySecret: 'gh_gs' },
  sandbox: { accountKey: 'sbkey', accountSecret: 'gh_sbs', gatewayClient: 'sbgwc', gatewaySecret: 'gh_sbgs' },
} as const;
