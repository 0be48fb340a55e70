// A statement with its values written into the text, for the one statement that takes no parameters:
// COPY (SELECT …) TO STDOUT (the simple query protocol). Only the values the service's own queries
// bind are accepted — finite numbers, text, arrays of them — and text goes through node-postgres's
// escapeLiteral; anything else is a programming error, refused rather than guessed at.
import pg from 'pg';

function literal(value: unknown): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${value}`);
    return String(value);
  }
  if (typeof value === 'string') return pg.escapeLiteral(value);
  if (Array.isArray(value)) return `array[${value.map(literal).join(', ')}]`;
  throw new TypeError(`no literal for a value of type ${typeof value}`);
}

/** `text` with each `$n` replaced by the literal of `values[n - 1]` (every placeholder must have its value). */
export function withValuesWritten(text: string, values: readonly unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const index = Number(n) - 1;
    if (!(index in values)) throw new RangeError(`no value for $${n}`);
    return literal(values[index]);
  });
}
