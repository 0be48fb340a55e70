// The support console as a queue, in a real browser (Debian's chromium through playwright-core):
// fifty Pending auctions of two facilities and some twenty-five open notifications. Support sees
// the operator application's name, the Pending auctions sorted by facility then unit and paged by
// the server, facility-local times with the zone named, the detail in a dialog that opens in view
// whatever the scroll, actions on each Pending card, a confirmation before cancelling (declined:
// nothing changes), and the open notifications — one card per group with its count and newest
// occurrence — sorted by facility and paged. The admin routes it uses are checked over HTTP too.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { consoleFixture, signIn } from '../helpers/browser.ts';
import { ok, refused, typedClient } from '../helpers/client.ts';
import { tokenFrom } from '../helpers/http.ts';
import { partnerToken } from '../helpers/tenants.ts';
import { byUnit, createList, envelopeOf, record, type Partner } from '../auctions/helpers.ts';

const session = consoleFixture();

const PAGE_SIZE = 20;

/** The console's own time format, in a zone: "Nov 26, 14:05 MST". */
const zoned = (iso: string, timeZone: string) =>
  new Intl.DateTimeFormat('en-US', {
    timeZone,
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  }).format(new Date(iso));

/** Byte-wise order, as the server sorts names and units (collation "C"). */
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

async function statusOf(auctionId: string) {
  return session.t.services.database.db
    .selectFrom('auctions')
    .select(['status', 'auction_type'])
    .where('id', '=', auctionId)
    .executeTakeFirstOrThrow();
}

it('works a queue of fifty Pending auctions and the open notifications: sorted, paged, in the facility’s time', async () => {
  const { db } = session.t.services.database;
  const { tenancy } = session.t.services;
  const account = await tenancy.createAccount({ name: 'Queue Storage' });
  let made = 0;
  const facility = (name: string, timeZone: string) =>
    tenancy.createFacility({
      accountId: account.id,
      name,
      timeZone,
      propertyNumber: `Q-${account.id}-${++made}`,
      guid: `Q${account.id}-${made}`,
    });
  // Created in the reverse of their names' order: the list is by name, not by id.
  const zephyr = await facility('Zephyr Storage', 'America/Denver');
  const aspen = await facility('Aspen Storage', 'America/New_York');
  const partner = await partnerToken(session.t, 'QueuePMS', [zephyr.guid!, aspen.guid!]);
  const p = { ...partner, clientType: 'QueuePMS' } as unknown as Partner;
  // Aspen: 25 charity auctions, held until the facility is enrolled. Zephyr: 25 incomplete ones.
  // Sent in a shuffled order: the list sorts them.
  const numbers = Array.from({ length: 25 }, (_, i) => String(i + 1).padStart(2, '0')).reverse();
  const created = new Map<string, { auctionId: string; facilityId: number; unitId: string }>();
  for (const [f, prefix, extra] of [
    [aspen, 'A', { auctionType: 'Charity' }],
    [zephyr, 'Z', { imageUrls: [] }],
  ] as const) {
    const answer = envelopeOf(
      await createList(
        session.t,
        p,
        numbers.map((n) => record(`${prefix}-${n}`, extra)),
        { guid: f.guid! },
      ),
    );
    for (const [unitId, r] of byUnit(answer.data.results)) {
      assert.equal(r.status, 'Pending', JSON.stringify(r));
      created.set(unitId, { auctionId: r.auctionId, facilityId: f.id, unitId });
    }
  }
  assert.equal(created.size, 50);

  // Twenty-four more facilities, each with a group of failed images (their count: the facility's number).
  const queue: Awaited<ReturnType<typeof facility>>[] = [];
  for (let i = 1; i <= 24; i++) queue.push(await facility(`Queue ${String(i).padStart(2, '0')}`, 'Europe/Berlin'));
  await db.transaction().execute((trx) =>
    session.t.services.support.raise(
      trx,
      new Date(),
      queue.flatMap((f, i) =>
        Array.from({ length: i + 1 }, (_, n) => ({
          kind: 'IMAGE_FETCH_FAILED' as const,
          reason: 'HTTP_STATUS',
          message: `Image 1 of the auction of unit X-${n + 1} (facility ${f.guid}) could not be retrieved: 404.`,
          facilityId: f.id,
          auctionId: null,
          detail: { guid: f.guid, unitId: `X-${n + 1}`, position: 0 },
        })),
      ),
    ),
  );

  const operator = await tenancy.createApplication({ name: 'Queue desk', operator: true });
  const token = await tokenFrom(session.base, {
    grant_type: 'client_credentials',
    client_id: operator.clientId,
    client_secret: operator.clientSecret,
  });
  const ops = typedClient(session.t, token);

  // ---- the admin routes the console uses ----
  const whoami = await ok(ops.GET('/admin/whoami'), 200);
  assert.equal(whoami.name, 'Queue desk');
  assert.equal(whoami.clientId, operator.clientId);
  assert.equal(whoami.operator, true);
  await refused(typedClient(session.t, partner.token).GET('/admin/whoami'), 403); // a partner is not an operator
  // The facility order, page after page by cursor: every Pending auction once, by name then unit.
  const expected = [...created.values()]
    .map((a) => ({ ...a, name: a.facilityId === aspen.id ? aspen.name : zephyr.name }))
    .sort((a, b) => byteOrder(a.name, b.name) || byteOrder(a.unitId, b.unitId))
    .map((a) => a.unitId);
  const read: string[] = [];
  let cursor: string | undefined;
  do {
    const query = { status: 'Pending', order: 'facility', limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } as const;
    const answer = await ok(ops.GET('/admin/auctions', { params: { query } }), 200);
    read.push(...answer.auctions.map((a) => a.unitId));
    cursor = answer.nextCursor ?? undefined;
  } while (cursor);
  assert.deepEqual(read, expected);
  assert.deepEqual(expected.slice(0, 3), ['A-01', 'A-02', 'A-03']);
  // A cursor of the other order is refused, not misread.
  const newest = await ok(ops.GET('/admin/auctions', { params: { query: { status: 'Pending', limit: 1 } } }), 200);
  const mixed = await refused(
    ops.GET('/admin/auctions', {
      params: { query: { status: 'Pending', order: 'facility', cursor: newest.nextCursor ?? undefined } },
    }),
    400,
  );
  assert.match(JSON.stringify(mixed), /cursor/);

  // ---- the browser ----
  const { page, problems } = await session.open();
  await signIn(page, session.base, operator.clientId, operator.clientSecret);
  await page.waitForSelector('#work:not([hidden])');
  assert.equal(await page.locator('#who-text').textContent(), 'Signed in as Queue desk');

  // Open notifications: one card per group, by facility name, twenty a page.
  const open = await ok(ops.GET('/admin/notifications', { params: { query: { limit: 500 } } }), 200);
  const groups = open.notifications.length;
  assert.ok(groups > PAGE_SIZE && groups <= 2 * PAGE_SIZE, `${groups} open groups`);
  await page.waitForSelector('#pager .page-label');
  assert.equal(await page.locator('#pager .page-label').textContent(), `Page 1 of 2 · 1–${PAGE_SIZE} of ${groups}`);
  const cardFacilities = () =>
    page.locator('#list article').evaluateAll((cards) => cards.map((c) => Number((c as any).dataset.facilityId)));
  const names = new Map([aspen, zephyr, ...queue].map((f) => [f.id, f.name]));
  const firstPage = await cardFacilities();
  assert.equal(firstPage.length, PAGE_SIZE);
  assert.equal(await page.getByRole('button', { name: 'Previous page' }).isDisabled(), true);
  await page.getByRole('button', { name: 'Next page' }).click();
  await page.waitForSelector(`#pager .page-label:has-text("Page 2 of 2 · ${PAGE_SIZE + 1}–${groups} of ${groups}")`);
  const secondPage = await cardFacilities();
  assert.equal(secondPage.length, groups - PAGE_SIZE);
  assert.equal(await page.getByRole('button', { name: 'Next page' }).isDisabled(), true);
  // Ours in order: Aspen, the Queue facilities 01–24, Zephyr (the one other test data sorts among them).
  const ours = [...firstPage, ...secondPage].filter((id) => names.has(id)).map((id) => names.get(id));
  assert.deepEqual(ours, [aspen.name, ...queue.map((f) => f.name), zephyr.name]);
  assert.equal(new Set([...firstPage, ...secondPage]).size, groups, 'every group once');

  // A group: its count in words and as a badge, the newest occurrence in the facility's time.
  const zephyrGroup = page.locator(`article[data-facility-id="${zephyr.id}"][data-kind=AUCTION_PENDING]`);
  assert.equal(await zephyrGroup.locator('.title').textContent(), '25 auctions held Pending for Zephyr Storage');
  assert.equal(await zephyrGroup.locator('.count').textContent(), '×25');
  const newestText = (await zephyrGroup.locator('.newest').textContent()) ?? '';
  assert.match(newestText, /^Newest occurrence: [A-Z][a-z]{2} \d{1,2}, \d{2}:\d{2} MST — /);
  assert.equal(await zephyrGroup.locator('.items li').count(), 25);
  assert.deepEqual(
    await zephyrGroup.locator('.items li').evaluateAll((items) => items.map((li) => (li as any).dataset.auctionId)),
    numbers
      .slice()
      .reverse()
      .map((n) => created.get(`Z-${n}`)!.auctionId),
    'the occurrences by unit',
  );
  assert.equal(
    await zephyrGroup.locator('.delivery').textContent(),
    'Support webhook: not configured — notifications are logged only.',
  );
  await page.getByRole('button', { name: 'Previous page' }).click();
  const images = page.locator(`article[data-facility-id="${queue[6]!.id}"]`);
  await images.waitFor();
  assert.equal(await images.locator('.title').textContent(), '7 images failed for Queue 07');
  assert.match((await images.locator('.created').textContent()) ?? '', /^Opened .* GMT\+1$/);
  const aspenGroup = page.locator(`article[data-facility-id="${aspen.id}"]`);
  const aspenOpened = (await aspenGroup.locator('.created time').getAttribute('datetime'))!;
  assert.equal(await aspenGroup.locator('.created').textContent(), `Opened ${zoned(aspenOpened, 'America/New_York')}`);
  assert.match((await aspenGroup.locator('.created').textContent()) ?? '', / EST$/);
  assert.equal(await aspenGroup.locator('.created time').getAttribute('title'), 'America/New_York');

  // ---- Pending auctions: by facility then unit, twenty a page ----
  await page.click('button[data-view=pending]');
  await page.waitForSelector('#pager .page-label:has-text("Page 1 · 1–20")');
  const units = () =>
    page.locator('#list article').evaluateAll((cards) => cards.map((c) => (c as any).dataset.unitId as string));
  assert.deepEqual(await units(), expected.slice(0, 20));
  await page.getByRole('button', { name: 'Next page' }).click();
  await page.waitForSelector('#pager .page-label:has-text("Page 2 · 21–40")');
  assert.deepEqual(await units(), expected.slice(20, 40));
  assert.deepEqual((await units()).slice(4, 6), ['A-25', 'Z-01'], 'the page crosses from Aspen to Zephyr');
  await page.getByRole('button', { name: 'Next page' }).click();
  await page.waitForSelector('#pager .page-label:has-text("Page 3 · 41–50")');
  assert.deepEqual(await units(), expected.slice(40));
  assert.equal(await page.getByRole('button', { name: 'Next page' }).isDisabled(), true);

  // A card: facility, unit, time in the facility's zone, and what can be done about it.
  const card = (unitId: string) => page.locator(`#list article[data-unit-id="${unitId}"]`);
  const z25 = card('Z-25');
  assert.equal(await z25.locator('.facility').textContent(), 'Zephyr Storage');
  assert.match((await z25.locator('.unit').textContent()) ?? '', /^unit Z-25 · N-Z-25$/);
  const received = (await z25.locator('.created time').getAttribute('datetime'))!;
  assert.equal(await z25.locator('.created').textContent(), `Received ${zoned(received, 'America/Denver')}`);
  for (const action of ['view', 'change-type', 'cancel'])
    assert.equal(await z25.locator(`button[data-action=${action}]`).count(), 1, action);
  assert.equal(await z25.locator('button[data-action=enrol]').count(), 0, 'not held for charity');
  assert.equal(await z25.locator('.reason').textContent(), 'Pending INCOMPLETE (missing imageUrls)');
  assert.equal(await z25.getByLabel('Auction type').inputValue(), 'Lien');

  // The detail opens in view at the bottom of a scrolled page, focus inside it.
  await z25.scrollIntoViewIfNeeded();
  await page.evaluate(() => (globalThis as any).scrollTo(0, (globalThis as any).document.body.scrollHeight));
  assert.ok((await page.evaluate(() => (globalThis as any).scrollY)) > 0, 'the page is scrolled');
  await z25.getByRole('button', { name: 'View auction' }).click();
  const detail = page.locator('#detail[open]');
  await detail.waitFor();
  assert.equal(await page.locator('#detail-title').textContent(), 'Auction of unit Z-25 at Zephyr Storage');
  const box = await detail.boundingBox();
  const innerHeight = await page.evaluate(() => (globalThis as any).innerHeight as number);
  assert.ok(box && box.y >= 0 && box.y + box.height <= innerHeight, `dialog ${JSON.stringify(box)} in ${innerHeight}`);
  assert.equal(await page.evaluate(() => (globalThis as any).document.activeElement?.closest('#detail')?.id), 'detail');
  assert.match((await detail.textContent()) ?? '', /Runs.* MST → .* MST/);
  await page.keyboard.press('Escape');
  await page.locator('#detail').waitFor({ state: 'hidden' });

  // Cancel, asked first: declined, nothing changes; confirmed, Cancelled.
  await z25.getByRole('button', { name: 'Cancel auction' }).click();
  const confirm = page.locator('#confirm[open]');
  await confirm.waitFor();
  assert.equal(
    await page.locator('#confirm-text').textContent(),
    'Cancel the auction of unit Z-25 at Zephyr Storage? This cannot be undone.',
  );
  assert.deepEqual(await confirm.getByRole('button').allTextContents(), ['Cancel the auction', 'Keep the auction']);
  assert.equal(
    await page.evaluate(() => (globalThis as any).document.activeElement?.id),
    'confirm-no',
    'the safe answer has focus',
  );
  await page.click('#confirm-no');
  await page.waitForSelector('#status:has-text("The auction of unit Z-25 at Zephyr Storage was not cancelled.")');
  assert.equal((await statusOf(created.get('Z-25')!.auctionId)).status, 'Pending');
  assert.equal(await z25.count(), 1);
  // Confirmed from the detail (the confirmation over it): the detail then reads Cancelled.
  await z25.getByRole('button', { name: 'View auction' }).click();
  await detail.getByRole('button', { name: 'Cancel auction' }).click();
  await confirm.waitFor();
  await page.click('#confirm-yes');
  await page.waitForSelector('#status:has-text("Cancel the auction of unit Z-25 at Zephyr Storage: done.")');
  assert.equal((await statusOf(created.get('Z-25')!.auctionId)).status, 'Cancelled');
  await z25.waitFor({ state: 'detached' });
  await detail.locator('td:text-is("Cancelled")').waitFor();
  assert.equal(await detail.getByRole('button', { name: 'Cancel auction' }).count(), 0);
  await page.click('#detail-close');
  await page.waitForSelector('#pager .page-label:has-text("Page 3 · 41–49")');

  // Change the type of a charity auction: Lien, complete, so Active.
  await page.getByRole('button', { name: 'Previous page' }).click();
  await page.waitForSelector('#pager .page-label:has-text("Page 2 · 21–40")');
  await page.getByRole('button', { name: 'Previous page' }).click();
  await page.waitForSelector('#pager .page-label:has-text("Page 1 · 1–20")');
  const a01 = card('A-01');
  assert.equal(await a01.getByLabel('Auction type').inputValue(), 'Charity');
  assert.equal(await a01.locator('.reason').textContent(), 'Pending CHARITY_NOT_ENROLLED');
  await a01.getByLabel('Auction type').selectOption('Lien');
  await a01.getByRole('button', { name: 'Change type' }).click();
  await page.waitForSelector('#status:has-text("Change the type of unit A-01 to Lien: done.")');
  await a01.waitFor({ state: 'detached' });
  assert.deepEqual(await statusOf(created.get('A-01')!.auctionId), { status: 'Active', auction_type: 'Lien' });
  assert.equal((await units())[0], 'A-02');

  // Enrol the facility: its other 24 charity auctions become Active; Zephyr's stay.
  await card('A-02').getByRole('button', { name: 'Enrol facility in charity programme' }).click();
  await page.waitForSelector('#status:has-text("Enrol Aspen Storage: done.")');
  await card('A-02').waitFor({ state: 'detached' });
  await page.waitForSelector('#pager .page-label:has-text("Page 1 · 1–20")');
  assert.deepEqual(await units(), expected.slice(25, 45));
  assert.equal((await statusOf(created.get('A-02')!.auctionId)).status, 'Active');

  assert.deepEqual(problems, []);
  await page.close();
});
