// Secrets issued by earlier versions are stored as scrypt hashes (~60 ms of a core and 16 MiB to
// check) until their next successful use replaces them (secrets.ts). Unbounded, a storm of such
// checks — a fleet reconnecting just after an upgrade, or a flood of guesses at old credentials —
// would queue it all. Here at most `concurrency` checks run at once (half the cores: the other half
// keeps serving requests); the others wait in a line per client, served in turn — one check of each
// waiting client, then round again. A client with nothing waiting is served before those already in
// the round (as FQ-CoDel serves sparse flows), so a client asking for one token is next, however many
// checks wait. Lines are short (`waitingPerClient`), and so is the whole (`waitingInAll`): a check
// that finds no room is refused at once (the endpoint answers 503 + Retry-After) instead of waiting
// for seconds. Today's hashes (a keyed SHA-256) never wait here.

export class SecretCheckLineFull extends Error {
  constructor() {
    super('Too many secret checks are waiting.');
    this.name = 'SecretCheckLineFull';
  }
}

/**
 * How many checks may wait: for one client (a client id's TOKEN_FAILURE_LIMIT default, so that the
 * attempts it may have in progress can all wait), and in all (at ~60 ms a check on one core, a
 * full line waits about 4 s — longer, and clients would time out rather than retry).
 */
export const WAITING_PER_CLIENT = 10;
export const WAITING_IN_ALL = 64;

export class SecretCheckLine {
  private running = 0;
  private waiting = 0;
  // Waiting checks per client, in two rounds: clients that had nothing waiting when their check
  // came (served first — a client asking once is served next, as FQ-CoDel serves sparse flows),
  // and clients that have already been served once and still have checks waiting.
  private readonly newcomers = new Map<string, (() => void)[]>();
  private readonly others = new Map<string, (() => void)[]>();

  constructor(
    readonly concurrency: number,
    readonly waitingPerClient: number,
    readonly waitingInAll: number,
  ) {}

  /** Checks on half the cores (at least one): on all of them, scrypt starved the event loop and the embedded database's thread. */
  static forCores(cores: number): SecretCheckLine {
    return new SecretCheckLine(Math.max(1, Math.floor(cores / 2)), WAITING_PER_CLIENT, WAITING_IN_ALL);
  }

  /** Runs `check` when its client's turn comes; throws SecretCheckLineFull when there is no room to wait. */
  async run<T>(client: string, check: () => Promise<T>): Promise<T> {
    if (this.running < this.concurrency && this.waiting === 0) {
      this.running += 1;
    } else {
      const line = this.newcomers.get(client) ?? this.others.get(client);
      if ((line?.length ?? 0) >= this.waitingPerClient || this.waiting >= this.waitingInAll)
        throw new SecretCheckLineFull();
      // The place is handed over by next(), which counts it in `running`.
      await new Promise<void>((resolve) => {
        if (line) line.push(resolve);
        else this.newcomers.set(client, [resolve]);
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

  /** Gives the free place to the first waiting newcomer, else the next client in turn; either then goes to the back. */
  private next() {
    const round = this.newcomers.size > 0 ? this.newcomers : this.others;
    const first = round.entries().next();
    if (first.done) return;
    const [client, line] = first.value;
    const start = line.shift()!;
    round.delete(client);
    if (line.length > 0) this.others.set(client, line);
    this.waiting -= 1;
    this.running += 1;
    start();
  }
}
