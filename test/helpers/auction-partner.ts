// The auction partner fixture of a test file: the app (with what its auctions reach: an image host,
// the support webhook receiver, as real loopback servers), a partner assigned to two facilities, and
// an operator's token — started before the file's tests, closed after.
//
//   const auctions = auctionPartner({ imageHost: true, supportHook: true });
//   it('…', async () => { await createList(auctions.t, auctions.partner, [record('U-1')]); … });
import { adminToken, type Partner, setupPartner } from '../auctions/helpers.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../auctions/webhook-receiver.ts';
import { type ImageHost, startImageHost } from '../net/image-host.ts';
import { appFixture, type TestApp } from './harness.ts';

export interface AuctionPartnerOptions {
  /** An image host on loopback, allowed as IMAGE_FETCH_ALLOW_HOSTS. */
  imageHost?: boolean;
  /** A support webhook receiver on loopback, as SUPPORT_WEBHOOK_URL. */
  supportHook?: boolean;
  env?: Record<string, string>;
  runJobs?: boolean;
  /** Env that needs something started first (an S3 server); closed by `cleanup`. */
  prepare?: () => Promise<Record<string, string>>;
  cleanup?: () => Promise<void> | void;
}

export interface AuctionPartner {
  readonly t: TestApp;
  /** The partner (two facilities of one account); the first is its `guid`. */
  readonly partner: Partner;
  /** An operator's token (scope admin). */
  readonly admin: string;
  readonly host: ImageHost;
  readonly hook: WebhookReceiver;
}

export function auctionPartner(options: AuctionPartnerOptions = {}): AuctionPartner {
  let partner: Partner | undefined;
  let admin: string | undefined;
  let host: ImageHost | undefined;
  let hook: WebhookReceiver | undefined;
  const t = appFixture({
    runJobs: options.runJobs,
    async prepare() {
      if (options.imageHost) host = await startImageHost();
      if (options.supportHook) hook = await startWebhookReceiver();
      return {
        ...(host ? { IMAGE_FETCH_ALLOW_HOSTS: host.hostPort } : {}),
        ...(hook ? { SUPPORT_WEBHOOK_URL: hook.url } : {}),
        ...options.env,
        ...(await options.prepare?.()),
      };
    },
    async started(t) {
      partner = await setupPartner(t);
      admin = await adminToken(t);
    },
    async cleanup() {
      await host?.close();
      await hook?.close();
      await options.cleanup?.();
    },
  });
  const given = <T>(value: T | undefined, what: string): T => {
    if (value === undefined)
      throw new Error(`the auction partner fixture has no ${what} (not asked for, or used before its before hook)`);
    return value;
  };
  return {
    t,
    get partner() {
      return given(partner, 'partner');
    },
    get admin() {
      return given(admin, 'operator token');
    },
    get host() {
      return given(host, 'image host');
    },
    get hook() {
      return given(hook, 'support webhook receiver');
    },
  };
}
