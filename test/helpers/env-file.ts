// The reference deployment's files read as systemd reads them, for the test that runs them as written:
// an EnvironmentFile (KEY=value lines, # comments, a double-quoted value kept with its line breaks)
// and a unit's [Service] settings.

/** The variables of an EnvironmentFile, in systemd's reading (the subset deploy/gatehouse.env uses). */
export function parseEnvironmentFile(text: string): Record<string, string> {
  const variables: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) throw new Error(`line ${i + 1} is not KEY=value: ${line}`);
    const key = line.slice(0, eq).trim();
    let value = line.slice(eq + 1).trim();
    if (value.startsWith('"')) {
      // A double-quoted value runs to its closing quote, over lines if need be.
      value = value.slice(1);
      while (!value.endsWith('"')) {
        i++;
        if (i >= lines.length) throw new Error(`${key}: its double quote is not closed`);
        value += `\n${lines[i]}`;
      }
      value = value.slice(0, -1);
    }
    variables[key] = value;
  }
  return variables;
}

/** A unit file's settings of one section, each with every value it is given (in order). */
export function unitSection(text: string, section: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      current = header[1]!;
      continue;
    }
    if (current !== section) continue;
    const eq = line.indexOf('=');
    const key = line.slice(0, eq);
    settings.set(key, [...(settings.get(key) ?? []), line.slice(eq + 1)]);
  }
  return settings;
}

/** The variables of a unit's Environment= lines (unquoted words KEY=value), with its specifiers replaced. */
export function unitEnvironment(values: string[], specifiers: Record<string, string>): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const value of values) {
    for (const word of value.split(/\s+/).filter(Boolean)) {
      const eq = word.indexOf('=');
      variables[word.slice(0, eq)] = word.slice(eq + 1).replace(/%(.)/g, (_, s: string) => specifiers[s] ?? `%${s}`);
    }
  }
  return variables;
}
