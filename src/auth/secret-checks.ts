// Secret checks (scrypt: ~60 ms of a core and 16 MiB each) are the token endpoint's costly work.
// Unbounded, a flood of guesses queued them all and a legitimate client waited behind the whole
// flood (12–23 s for 400 guesses). Here at most `concurrency` run at once (one per core by
// default); the others wait in a line per client, served in turn — one check of each waiting
// client, then round again — and every unknown client id shares ONE turn. So a flood of guesses,
// from however many addresses, with made-up client ids or another client's, delays a client's
// check by about one check per other waiting client, not by the flood. Lines are short
// (`waitingPerClient`) and so is the whole (`waitingInAll`): a check that finds no room is refused
// at once (the endpoint answers 503 + Retry-After) instead of waiting for seconds.
//
// What this does not fix: a flood of wrong secrets for ONE known client id, from many addresses,
// fills that client's own line (each address is held to TOKEN_FAILURE_LIMIT by the throttle).
// Checks served from the cache of verified secrets (secrets.ts) never wait in a line.

export class SecretCheckLineFull extends Error {
  constructor() {
    super('Too many secret checks are waiting.');
    this.name = 'SecretCheckLineFull';
  }
}

/** The one turn that every client id without a credential shares. */
export const UNKNOWN_CLIENT = '(unknown client)';

export class SecretCheckLine {
  private running = 0;
  private waiting = 0;
  // Waiting checks per client; the Map's order is the order of turns.
  private readonly lines = new Map<string, (() => void)[]>();

  constructor(
    readonly concurrency: number,
    readonly waitingPerClient: number,
    readonly waitingInAll: number,
  ) {}

  /** Runs `check` when its client's turn comes; throws SecretCheckLineFull when there is no room to wait. */
  async run<T>(client: string, check: () => Promise<T>): Promise<T> {
    if (this.running < this.concurrency && this.waiting === 0) {
      this.running += 1;
    } else {
      const line = this.lines.get(client) ?? [];
      if (line.length >= this.waitingPerClient || this.waiting >= this.waitingInAll) throw new SecretCheckLineFull();
      // The place is handed over by next(): `running` is counted there.
      await new Promise<void>((resolve) => {
        line.push(resolve);
        this.lines.set(client, line);
        this.waiting += 1;
      });
    }
    try {
      return await check();
    } finally {
      this.running -= 1;
      this.next();
    }
  }

  /** Gives the free place to the first waiting client in turn, who then goes to the back. */
  private next() {
    const first = this.lines.entries().next();
    if (first.done) return;
    const [client, line] = first.value;
    const start = line.shift()!;
    this.lines.delete(client);
    if (line.length > 0) this.lines.set(client, line);
    this.waiting -= 1;
    this.running += 1;
    start();
  }
}
