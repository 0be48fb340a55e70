// The support console: a page for support staff to work through their queue — grouped support
// notifications and Pending auctions, sorted by facility then unit and paged — through the admin
// routes, and the operator's facility page — the status list with its colours, a facility's
// devices and alarms, the remote actions (each confirmed first, with an optional reason; those asked
// for and their results, and the failed commands, listed) and its maintenance windows (scheduled and
// cancelled through the admin routes). Plain browser JavaScript, no
// build step. All data is rendered as text (never as HTML); the token lives in this page's memory only.

/** Cards or rows on one page of a list. */
const PAGE_SIZE = 20;

const state = {
  token: null,
  view: 'open',
  /** Facility id → { name, timeZone, guid }: names and local times (GET /admin/facilities). */
  facilities: new Map(),
  /** Per view: the page shown (0-based) and, for lists the server pages, the cursor of each page. */
  pages: {},
  /** Counts the list reads: a read overtaken by a later one is not drawn. */
  generation: 0,
};
const $ = (selector) => document.querySelector(selector);

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'dataset') Object.assign(node.dataset, value);
    else if (name === 'onclick') node.addEventListener('click', value);
    else node.setAttribute(name, value);
  }
  for (const child of children)
    node.append(child instanceof Node ? child : document.createTextNode(String(child ?? '')));
  return node;
}

function say(message, ok = false) {
  const status = $('#status');
  status.textContent = message;
  status.className = ok ? 'ok' : '';
}

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: {
      authorization: `Bearer ${state.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 401) {
    signOut();
    throw new Error('The session has expired: sign in again.');
  }
  const payload = response.status === 204 ? null : await response.json();
  if (!response.ok) {
    const details = (payload?.errors ?? []).map((e) => `${e.path} ${e.message}`).join('; ');
    throw new Error(`${payload?.detail ?? response.statusText}${details ? ` (${details})` : ''}`);
  }
  return payload;
}

// ---- names and times ----

/** Units and names compare as people read them: U-2 before U-10, case aside. */
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

function facilityName(facilityId) {
  if (facilityId === null || facilityId === undefined) return 'the whole service';
  return state.facilities.get(facilityId)?.name ?? `facility ${facilityId}`;
}

const formats = new Map();

/**
 * A time as the facility's staff read it: in the facility's zone, named ("Nov 26, 14:05 MST"),
 * never in the browser's zone. Times that belong to no facility read in UTC, named too.
 */
function localTime(iso, facilityId) {
  if (!iso) return '—';
  const timeZone = state.facilities.get(facilityId)?.timeZone ?? 'UTC';
  const at = new Date(iso);
  const withYear = at.getUTCFullYear() !== new Date().getUTCFullYear();
  const key = `${timeZone}|${withYear}`;
  if (!formats.has(key))
    formats.set(
      key,
      new Intl.DateTimeFormat('en-US', {
        timeZone,
        year: withYear ? 'numeric' : undefined,
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
        timeZoneName: 'short',
      }),
    );
  return formats.get(key).format(at);
}

/** A <time> element: the local time as text, the instant and the zone's IANA name for a closer look. */
function timeElement(iso, facilityId, attributes = {}) {
  const timeZone = state.facilities.get(facilityId)?.timeZone ?? 'UTC';
  return element('time', { datetime: iso ?? '', title: timeZone, ...attributes }, localTime(iso, facilityId));
}

async function loadFacilities() {
  const facilities = await api('GET', '/admin/facilities');
  state.facilities = new Map(facilities.map((f) => [f.id, { name: f.name, timeZone: f.timeZone, guid: f.guid }]));
}

// ---- signing in ----

async function signIn(event) {
  event.preventDefault();
  const form = new FormData(event.target);
  const response = await fetch('/auth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: form.get('clientId'),
      client_secret: form.get('clientSecret'),
    }),
  });
  const payload = await response.json().catch(() => ({}));
  if (
    !response.ok ||
    !String(payload.scope ?? '')
      .split(' ')
      .includes('admin')
  ) {
    say(
      response.ok
        ? "These credentials are not an operator application's."
        : `Sign-in failed: ${payload.error_description ?? payload.error ?? response.status}`,
    );
    return;
  }
  state.token = payload.access_token;
  event.target.reset();
  // The token answer names the client only by its id; support reads the application's name.
  const me = await api('GET', '/admin/whoami');
  $('#who-text').textContent = `Signed in as ${me.name}`;
  $('#who-text').title = me.clientId;
  $('#who').hidden = false;
  $('#sign-in').hidden = true;
  $('#work').hidden = false;
  say('');
  state.pages = {};
  await show('open');
}

function signOut() {
  state.token = null;
  $('#who').hidden = true;
  $('#sign-in').hidden = false;
  $('#work').hidden = true;
  $('#list').replaceChildren();
  $('#pager').replaceChildren();
  for (const dialog of document.querySelectorAll('dialog')) if (dialog.open) dialog.close();
}

// ---- dialogs: the detail, and the confirmation ----

/** Shows the detail in a modal dialog: drawn over the list, in view whatever the scroll; focus moves into it. */
function openDetail(title, auctionId, ...children) {
  state.detailAuctionId = auctionId;
  $('#detail-title').textContent = title;
  $('#detail-body').replaceChildren(...children);
  const dialog = $('#detail');
  if (!dialog.open) dialog.showModal();
  $('#detail-close').focus();
}

/**
 * Asks before an action that cannot be undone, in the page (a modal <dialog>, not the browser's
 * confirm): resolves true on Confirm, false on Cancel or Escape — then nothing is sent.
 */
function ask(question, yesLabel, noLabel = 'Cancel') {
  const dialog = $('#confirm');
  $('#confirm-text').textContent = question;
  $('#confirm-yes').textContent = yesLabel;
  $('#confirm-no').textContent = noLabel;
  dialog.returnValue = '';
  dialog.showModal();
  $('#confirm-no').focus();
  return new Promise((resolve) =>
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'yes'), { once: true }),
  );
}

/** Runs a call and says how it went: `<label>…`, then `<label>: <done>.` or why it failed. */
async function attempt(label, call, done = 'done') {
  try {
    say(`${label}…`, true);
    await call();
    say(`${label}: ${done}.`, true);
  } catch (error) {
    say(`${label} failed: ${error.message}`);
  }
}

/** Shows the open facility's page again (after a change made from it). */
const redrawFacility = () => showFacility(state.facility.id, state.facility.name).catch((error) => say(error.message));

/** Runs an admin call, says how it went, then shows the list — and an auction's open detail — again. */
async function run(label, call) {
  await attempt(label, call);
  await show(state.view).catch((error) => say(error.message));
  if ($('#detail').open && state.detailAuctionId) await showAuction(state.detailAuctionId);
}

/** A button that runs an admin call, then shows the list again. */
function actionButton(action, label, runLabel, call) {
  return element('button', { type: 'button', dataset: { action }, onclick: () => run(runLabel, call) }, label);
}

/** Cancelling an auction, asked first (the partner can only recreate it after the wait). */
function cancelButton(auction) {
  const where = `unit ${auction.unitId} at ${facilityName(auction.facilityId)}`;
  return element(
    'button',
    {
      type: 'button',
      dataset: { action: 'cancel' },
      onclick: async () => {
        if (
          !(await ask(
            `Cancel the auction of ${where}? This cannot be undone.`,
            'Cancel the auction',
            'Keep the auction',
          ))
        ) {
          say(`The auction of ${where} was not cancelled.`);
          return;
        }
        await run(`Cancel the auction of ${where}`, () =>
          api('POST', `/admin/auctions/${auction.auctionId}/cancel`, { reason: 'Cancelled by support' }),
        );
      },
    },
    'Cancel auction',
  );
}

const viewButton = (auctionId) =>
  element(
    'button',
    { type: 'button', dataset: { action: 'view' }, onclick: () => showAuction(auctionId) },
    'View auction',
  );

const isCharityHeld = (item) =>
  item.reason === 'CHARITY_NOT_ENROLLED' || (item.detail?.reasons ?? []).includes('CHARITY_NOT_ENROLLED');

// ---- notifications ----

/** What a group of each kind counts, in words: "20 images failed", "1 auction held Pending". */
const COUNTED = {
  AUCTION_PENDING: ['auction held Pending', 'auctions held Pending'],
  IMAGE_FETCH_FAILED: ['image failed', 'images failed'],
  JOB_FAILED: ['background job failed', 'background jobs failed'],
  WEBHOOK_DISABLED: ['webhook subscription disabled', 'webhook subscriptions disabled'],
};

function groupTitle(n) {
  const [one, many] = COUNTED[n.kind] ?? [n.kind, n.kind];
  return `${n.count} ${n.count === 1 ? one : many} for ${facilityName(n.facilityId)}`;
}

/** The support webhook's part, in words (delivery "disabled" means no webhook is configured). */
function deliveryText(d, facilityId) {
  switch (d.status) {
    case 'disabled':
      return 'Support webhook: not configured — notifications are logged only.';
    case 'pending':
      return d.attempts > 0
        ? `Support webhook: not delivered yet, retrying (${d.attempts} attempts${d.lastError ? `; last: ${d.lastError}` : ''}).`
        : 'Support webhook: about to be sent.';
    case 'delivered':
      return `Support webhook: delivered ${localTime(d.deliveredAt, facilityId)}.`;
    case 'failed':
      return `Support webhook: delivery gave up after ${d.attempts} attempts${d.lastError ? ` (${d.lastError})` : ''}.`;
    default:
      return `Support webhook: ${d.status}.`;
  }
}

/** What can be done about one auction held Pending: change its type (a charity one), or cancel it. */
function pendingItemActions(item) {
  const buttons = [viewButton(item.auctionId)];
  if (item.resolution) return buttons;
  if (isCharityHeld(item)) {
    buttons.push(
      actionButton('lien', 'Change type to Lien', 'Change the type to Lien', () =>
        api('PATCH', `/admin/auctions/${item.auctionId}`, { auctionType: 'Lien' }),
      ),
    );
  }
  const unitId = item.detail?.unitId ?? '?';
  buttons.push(cancelButton({ auctionId: item.auctionId, unitId, facilityId: item.facilityId }));
  return buttons;
}

/** One occurrence of a notification: its own message, how it ended, and what can be done about it. */
function notificationItem(n, item) {
  const li = element('li', {}, element('span', { class: 'item-message' }, item.message));
  if (item.auctionId) li.dataset.auctionId = item.auctionId;
  if (item.resolution) {
    li.classList.add('settled');
    li.append(` — ${item.resolution}`);
  }
  if (!n.resolvedAt && item.auctionId) {
    const actions = element('span', { class: 'item-actions' });
    if (n.kind === 'AUCTION_PENDING') actions.append(...pendingItemActions({ ...item, facilityId: n.facilityId }));
    else actions.append(viewButton(item.auctionId));
    li.append(' ', actions);
  }
  return li;
}

const unitOf = (item) => String(item.detail?.unitId ?? '');

function notificationCard(n) {
  const card = $('#notification-template').content.firstElementChild.cloneNode(true);
  card.dataset.notificationId = n.id;
  card.dataset.count = String(n.count);
  card.dataset.kind = n.kind;
  if (n.facilityId) card.dataset.facilityId = n.facilityId;
  card.querySelector('.title').textContent = groupTitle(n);
  card.querySelector('.count').textContent = n.count > 1 ? `×${n.count}` : '';
  card.querySelector('.reason').textContent = n.count > 1 ? '' : (n.reason ?? '');
  card.querySelector('.created').replaceChildren('Opened ', timeElement(n.createdAt, n.facilityId));
  card.querySelector('.message').textContent =
    n.count > 1 ? n.message.slice(0, n.message.indexOf('. The first: ') + 1 || undefined) : n.message;
  // The newest occurrence: when it is among the items kept (the first ones), its message too.
  const newest = n.count <= n.items.length ? n.items.at(-1) : null;
  card
    .querySelector('.newest')
    .replaceChildren(
      'Newest occurrence: ',
      timeElement(n.lastOccurredAt, n.facilityId),
      newest && n.count > 1 ? ` — ${newest.message}` : '',
    );
  // The occurrences kept, by unit (as the lists are ordered); those without a unit keep their order.
  const items = [...n.items].sort((a, b) => collator.compare(unitOf(a), unitOf(b)));
  card.querySelector('.items').append(...items.map((item) => notificationItem(n, item)));
  card.querySelector('.more').textContent =
    n.count > n.items.length ? `The first ${n.items.length} of ${n.count} are listed.` : '';
  card
    .querySelector('.delivery')
    .replaceChildren(
      n.resolvedAt
        ? element(
            'span',
            {},
            'Resolved ',
            timeElement(n.resolvedAt, n.facilityId),
            ` by ${n.resolvedBy}: ${n.resolution}`,
          )
        : deliveryText(n.delivery, n.facilityId),
    );
  const actions = card.querySelector('.actions');
  if (!n.resolvedAt) {
    const charity = n.items.some((i) => !i.resolution && isCharityHeld(i));
    if (n.kind === 'AUCTION_PENDING' && charity && n.facilityId) actions.append(enrolButton(n.facilityId));
    actions.append(
      actionButton('resolve', 'Mark resolved', 'Mark resolved', () =>
        api('POST', `/admin/notifications/${n.id}/resolve`, { resolution: 'Resolved in the support console' }),
      ),
    );
  }
  return card;
}

const enrolButton = (facilityId) =>
  actionButton('enrol', 'Enrol facility in charity programme', `Enrol ${facilityName(facilityId)}`, () =>
    api('POST', `/admin/facilities/${facilityId}/charity-enrolment`),
  );

// ---- Pending auctions ----

/** "Pending CHARITY_NOT_ENROLLED, INCOMPLETE (missing imageUrls)", or the status alone. */
const statusText = (a) =>
  a.pendingReasons.length
    ? `${a.status} ${a.pendingReasons.join(', ')}${a.missingFields?.length ? ` (missing ${a.missingFields.join(', ')})` : ''}`
    : a.status;

/** A Pending auction's card, with what support can do about it (what the admin routes allow a Pending one). */
function auctionCard(a) {
  const actions = element('div', { class: 'actions' }, viewButton(a.auctionId));
  if (a.status === 'Pending') {
    const select = element(
      'select',
      { name: 'auctionType', id: `type-${a.auctionId}` },
      ...['Lien', 'Non-Lien', 'Charity'].map((type) =>
        Object.assign(element('option', { value: type }, type), { selected: type === a.auctionType }),
      ),
    );
    actions.append(
      element('label', { for: select.id, class: 'type-label' }, 'Auction type '),
      select,
      element(
        'button',
        {
          type: 'button',
          dataset: { action: 'change-type' },
          onclick: () =>
            run(`Change the type of unit ${a.unitId} to ${select.value}`, () =>
              api('PATCH', `/admin/auctions/${a.auctionId}`, { auctionType: select.value }),
            ),
        },
        'Change type',
      ),
    );
    if (a.pendingReasons.includes('CHARITY_NOT_ENROLLED')) actions.append(enrolButton(a.facilityId));
    actions.append(cancelButton(a));
  }
  return element(
    'article',
    { class: 'card', dataset: { auctionId: a.auctionId, facilityId: a.facilityId, unitId: a.unitId } },
    element(
      'header',
      {},
      element('strong', { class: 'facility' }, facilityName(a.facilityId)),
      element('span', { class: 'unit' }, `unit ${a.unitId} · ${a.unitName}`),
      element('span', { class: 'reason' }, statusText(a)),
      element('span', { class: 'created' }, 'Received ', timeElement(a.createdAt, a.facilityId)),
    ),
    element('p', {}, `${a.auctionType} auction${a.guid ? ` · facility guid ${a.guid}` : ''}`),
    actions,
  );
}

// ---- lists and their pages ----

/**
 * How each queue is read and paged:
 * - Pending auctions: by the server, in its facility order (`order=facility`), a page at a time by
 *   keyset cursor — Pending auctions are unbounded (a bad list holds hundreds), and a cursor stays
 *   valid while support empties the queue from under it.
 * - Open notifications: all read, then sorted and paged here. Open groups are few by construction
 *   (one per kind and facility, SPEC §3.5), and the server lists them only by age; sorting by the
 *   facility's name needs the names, which the page has.
 * - Resolved notifications: by the server, newest first — a history, read by time, that only grows.
 */
const LISTS = {
  pending: {
    server: true,
    read: (cursor) =>
      api(
        'GET',
        `/admin/auctions?status=Pending&order=facility&limit=${PAGE_SIZE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      ).then((page) => ({ items: page.auctions, nextCursor: page.nextCursor })),
    render: auctionCard,
    empty: 'No Pending auctions.',
  },
  resolved: {
    server: true,
    read: (cursor) =>
      api(
        'GET',
        `/admin/notifications?state=resolved&limit=${PAGE_SIZE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      ).then((page) => ({ items: page.notifications, nextCursor: page.nextCursor })),
    render: notificationCard,
    empty: 'None.',
  },
  open: {
    server: false,
    async readAll() {
      const all = [];
      let cursor = null;
      do {
        const page = await api(
          'GET',
          `/admin/notifications?state=open&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        all.push(...page.notifications);
        cursor = page.nextCursor;
      } while (cursor);
      // By facility (service-wide ones last), then kind, then the oldest first.
      const key = (n) => (n.facilityId === null ? '\uffff' : facilityName(n.facilityId));
      return all.sort(
        (a, b) =>
          collator.compare(key(a), key(b)) ||
          (a.facilityId ?? 0) - (b.facilityId ?? 0) ||
          a.kind.localeCompare(b.kind) ||
          a.createdAt.localeCompare(b.createdAt),
      );
    },
    render: notificationCard,
    empty: 'Nothing needs attention.',
  },
};

/** Shows the page `index` of a queue, with the controls to move between its pages. */
async function showList(view, index) {
  // Only the latest of overlapping reads is drawn (a double click, a tab changed while loading).
  const generation = ++state.generation;
  const list = LISTS[view];
  const paging = state.pages[view] ?? { index: 0, cursors: [null] };
  state.pages[view] = paging;
  let items;
  let hasNext;
  let label;
  if (list.server) {
    index = Math.min(Math.max(index, 0), paging.cursors.length - 1);
    const page = await list.read(paging.cursors[index]);
    // A page emptied by support's own work: step back to the one before.
    if (page.items.length === 0 && index > 0) {
      paging.cursors.length = index;
      return showList(view, index - 1);
    }
    if (page.nextCursor) paging.cursors[index + 1] = page.nextCursor;
    else paging.cursors.length = index + 1;
    items = page.items;
    hasNext = page.nextCursor !== null;
    label = items.length ? `Page ${index + 1} · ${index * PAGE_SIZE + 1}–${index * PAGE_SIZE + items.length}` : '';
  } else {
    const all = await list.readAll();
    const pages = Math.max(1, Math.ceil(all.length / PAGE_SIZE));
    index = Math.min(Math.max(index, 0), pages - 1);
    items = all.slice(index * PAGE_SIZE, (index + 1) * PAGE_SIZE);
    hasNext = index < pages - 1;
    label = all.length
      ? `Page ${index + 1} of ${pages} · ${index * PAGE_SIZE + 1}–${index * PAGE_SIZE + items.length} of ${all.length}`
      : '';
  }
  if (generation !== state.generation) return;
  paging.index = index;
  $('#list').replaceChildren(
    ...(items.length ? items.map(list.render) : [element('p', { class: 'empty' }, list.empty)]),
  );
  const pager = $('#pager');
  if (index === 0 && !hasNext) {
    pager.replaceChildren(label ? element('span', { class: 'page-label' }, label) : '');
    return;
  }
  const move = (to, text, enabled, action) =>
    Object.assign(
      element(
        'button',
        { type: 'button', dataset: { page: action }, onclick: () => showList(view, to).catch((e) => say(e.message)) },
        text,
      ),
      { disabled: !enabled },
    );
  pager.replaceChildren(
    move(index - 1, 'Previous page', index > 0, 'previous'),
    element('span', { class: 'page-label', 'aria-live': 'polite' }, label),
    move(index + 1, 'Next page', hasNext, 'next'),
  );
}

async function show(view) {
  state.view = view;
  for (const tab of document.querySelectorAll('.tab'))
    tab.setAttribute('aria-pressed', String(tab.dataset.view === view));
  await loadFacilities();
  const list = $('#list');
  if (LISTS[view]) return showList(view, state.pages[view]?.index ?? 0);
  const generation = ++state.generation;
  $('#pager').replaceChildren();
  if (view === 'webhooks') {
    const rows = await api('GET', '/admin/webhooks/subscriptions?limit=100');
    if (generation !== state.generation) return;
    list.replaceChildren(
      rows.length
        ? element(
            'table',
            { id: 'subscription-list' },
            element('tr', {}, ...['Subscription', 'URL', 'Topics', 'Health'].map((label) => element('th', {}, label))),
            ...rows.map(subscriptionRow),
          )
        : element('p', {}, 'No webhook subscriptions.'),
    );
  } else if (view === 'sandboxes') {
    // Integrators' sandboxes: accounts with an owner, listed apart from the production accounts.
    const rows = (await api('GET', '/admin/accounts')).filter((a) => a.sandbox);
    if (generation !== state.generation) return;
    list.replaceChildren(
      rows.length
        ? element(
            'table',
            { id: 'sandbox-list' },
            element('tr', {}, ...['Sandbox', 'Owner account', 'Created'].map((label) => element('th', {}, label))),
            ...rows.map((a) =>
              element(
                'tr',
                { dataset: { accountId: a.id } },
                element('th', { scope: 'row' }, `${a.name} `, element('span', { class: 'badge' }, 'sandbox')),
                element('td', {}, `account ${a.ownerAccountId}`),
                element('td', {}, localTime(a.createdAt)),
              ),
            ),
          )
        : element('p', {}, 'No sandboxes.'),
    );
  } else if (view === 'facilities') {
    const rows = await api('GET', '/facilities/statuslist');
    if (generation !== state.generation) return;
    list.replaceChildren(
      rows.length
        ? element(
            'table',
            { id: 'status-list' },
            element(
              'tr',
              {},
              element('th', {}, 'Facility'),
              ...PARTS.map(([, label]) => element('th', {}, label)),
              element('th', {}, ''),
            ),
            ...rows.map(facilityRow),
          )
        : element('p', {}, 'No facilities.'),
    );
  }
}

async function showAuction(auctionId) {
  try {
    const a = await api('GET', `/admin/auctions/${auctionId}`);
    const at = (iso) => localTime(iso, a.facilityId);
    const rows = [
      ['Auction', a.auctionId],
      ['Facility', `${facilityName(a.facilityId)}${a.guid ? ` (guid ${a.guid})` : ''}`],
      ['Unit', `${a.unitId} · ${a.unitName}`],
      ['Type', a.auctionType],
      ['Status', statusText(a)],
      ['Description', a.record.description ?? '—'],
      ['Runs', `${at(a.record.startsAt)} → ${at(a.record.endsAt)}`],
      ['Minimum bid', a.record.minimumBid ?? '—'],
    ];
    const actions = element('div', { class: 'actions' });
    if (a.status === 'Pending') {
      if (a.pendingReasons.includes('CHARITY_NOT_ENROLLED')) actions.append(enrolButton(a.facilityId));
      actions.append(cancelButton(a));
    }
    openDetail(
      `Auction of unit ${a.unitId} at ${facilityName(a.facilityId)}`,
      a.auctionId,
      element('table', {}, ...rows.map(([k, v]) => element('tr', {}, element('th', {}, k), element('td', {}, v)))),
      actions,
      element('h3', {}, 'Images'),
      element(
        'div',
        {},
        ...a.images.map((i) =>
          i.status === 'stored' && i.url?.startsWith('/media/')
            ? element('img', { src: i.url, alt: `image ${i.position + 1}`, title: i.sourceUrl })
            : element('p', {}, `${i.position + 1}. ${i.status}${i.error ? `: ${i.error}` : ''} — ${i.sourceUrl}`),
        ),
      ),
      element('h3', {}, 'History'),
      element(
        'table',
        {},
        ...a.history.map((h) =>
          element(
            'tr',
            {},
            element('td', {}, timeElement(h.at, a.facilityId)),
            element('td', {}, `${h.from ?? 'new'} → ${h.to}`),
            element('td', {}, h.reason),
            element('td', {}, h.actor),
            element('td', {}, h.note ?? ''),
          ),
        ),
      ),
    );
  } catch (error) {
    say(`Could not read the auction: ${error.message}`);
  }
}

// ---- facilities: the status list, a facility's page, remote actions ----

const PARTS = [
  ['gateway', 'Gateway'],
  ['device', 'Devices'],
  ['alarm', 'Alarms'],
  ['pmsInterface', 'PMS interface'],
];

function statusCell(word, message) {
  return element('td', { class: `status status-${word}`, title: message }, element('strong', {}, word), ` ${message}`);
}

function facilityRow(f) {
  return element(
    'tr',
    { dataset: { facilityId: f.facilityId } },
    element('th', { scope: 'row' }, f.facilityName, element('br'), element('small', {}, f.accountName)),
    ...PARTS.map(([part]) => statusCell(f[`${part}Status`], f[`${part}StatusMessage`])),
    element(
      'td',
      {},
      element('button', { type: 'button', onclick: () => showFacility(f.facilityId, f.facilityName) }, 'Open'),
    ),
  );
}

/** A webhook subscription's health as a status word: disabled (error), failing (warning), healthy (ok). */
function subscriptionHealth(s) {
  const h = s.health;
  // A subscription belongs to an account or a partner, not to one facility: its times read in UTC.
  if (s.status === 'disabled')
    return h.disabledReason === 'failing'
      ? ['error', `Disabled after failing since ${localTime(h.failingSince)}: ${h.lastError ?? ''}`]
      : ['warning', 'Disabled by its owner.'];
  if (h.failingSince) return ['warning', `Failing since ${localTime(h.failingSince)}: ${h.lastError ?? ''}`];
  return ['ok', h.lastSuccessAt ? `Last delivered ${localTime(h.lastSuccessAt)}.` : 'Nothing delivered yet.'];
}

function subscriptionRow(s) {
  const owner = s.owner.accountId !== undefined ? `account ${s.owner.accountId}` : `partner ${s.owner.applicationId}`;
  return element(
    'tr',
    { dataset: { subscriptionId: s.id } },
    element('th', { scope: 'row' }, String(s.id), element('br'), element('small', {}, owner)),
    element('td', { class: 'url' }, s.url),
    element('td', {}, s.topics.join(', ')),
    statusCell(...subscriptionHealth(s)),
  );
}

/** A remote action, asked first in the page; then the facility's page again. */
async function confirmThen(question, label, action) {
  if (!(await ask(question, 'Confirm'))) {
    say(`${label}: not sent.`);
    return;
  }
  await attempt(label, action, 'sent to the controller');
  await redrawFacility();
}

function switchRow(which, label, s, facilityName) {
  const reported = s.reported === null ? 'never reported' : s.reported ? 'on' : 'off';
  const desired = s.desired === null ? 'never asked' : s.desired ? 'on' : 'off';
  const base = `/facilities/${state.facility.id}/${which}`;
  const toggle = (on) =>
    element(
      'button',
      {
        type: 'button',
        dataset: { action: `${which}-${on ? 'enable' : 'disable'}` },
        onclick: () =>
          confirmThen(
            `Turn ${label.toLowerCase()} ${on ? 'ON' : 'OFF'} at ${facilityName}?`,
            `${label} ${on ? 'on' : 'off'}`,
            () => api('POST', `${base}/${on ? 'enable' : 'disable'}`, remoteActionBody()),
          ),
      },
      `${label} ${on ? 'on' : 'off'}`,
    );
  return element(
    'tr',
    { dataset: { switch: which } },
    element('th', { scope: 'row' }, label),
    element('td', { class: 'reported' }, reported),
    element('td', { class: 'desired' }, desired),
    element('td', {}, toggle(true), toggle(false)),
  );
}

async function showFacility(id, name) {
  state.facility = { id, name };
  // Everything the page shows is read first, together; then it is drawn at once (no section appears late).
  const [status, devices, groups, sections] = await Promise.all([
    api('GET', `/facilities/${id}/status`),
    api('GET', `/facilities/${id}/devices`),
    api('GET', `/facilities/${id}/actiongroups/manual`),
    Promise.all([maintenanceSection(id, name), driftSection(id), facilityRecords(id)]),
  ]);
  const word = status.gatewayControllerPlatformOverallStatus;
  const at = (iso) => timeElement(iso, id);
  openDetail(
    name,
    null,
    element(
      'p',
      { class: `status status-${word}`, id: 'overall' },
      element('strong', {}, word),
      ` ${status.gatewayControllerPlatformOverallStatusMessage}`,
    ),
    element('p', {}, 'Last heard: ', status.lastSeenAt ? at(status.lastSeenAt) : 'never'),
    element('h3', {}, 'Remote actions'),
    reasonInput(),
    element(
      'div',
      { id: 'action-groups' },
      ...groups.flatMap((g) =>
        ['open', 'hold', 'close'].map((action) =>
          element(
            'button',
            {
              type: 'button',
              dataset: { actionGroupId: g.id, action },
              onclick: () =>
                confirmThen(
                  `${action[0].toUpperCase()}${action.slice(1)} ${g.name} at ${name}?`,
                  `${g.name}: ${action}`,
                  () => api('POST', `/facilities/${id}/actiongroups/${g.id}/${action}`, remoteActionBody()),
                ),
            },
            `${action[0].toUpperCase()}${action.slice(1)} ${g.name}`,
          ),
        ),
      ),
    ),
    element(
      'table',
      { id: 'switches' },
      element(
        'tr',
        {},
        element('th', {}, ''),
        element('th', {}, 'Reported'),
        element('th', {}, 'Asked for'),
        element('th', {}, ''),
      ),
      switchRow('emergency', 'Emergency access', status.emergency, name),
      switchRow('lockdown', 'Lockdown', status.lockdown, name),
    ),
    element('p', {}, `Commands waiting for the controller: ${status.commands.pending}`),
    element('h3', {}, `Active alarms (${status.activeAlarms.length})`),
    element(
      'ul',
      { id: 'alarms' },
      ...status.activeAlarms.map((a) =>
        element(
          'li',
          {},
          `${a.eventTypeName} at ${a.unitNumber ? `unit ${a.unitNumber}` : (a.deviceName ?? a.deviceId ?? 'the facility')} since `,
          at(a.since),
        ),
      ),
    ),
    element('h3', {}, `Devices (${status.devices.total}, ${status.devices.offline} offline)`),
    element(
      'table',
      { id: 'devices' },
      ...devices.map((d) =>
        element(
          'tr',
          { dataset: { deviceId: d.id } },
          element('td', {}, d.name ?? d.id),
          element(
            'td',
            { class: `status status-${d.status.isOffline ? 'error' : 'ok'}` },
            d.status.isOffline ? 'offline' : 'online',
          ),
          element('td', {}, d.isPaired ? '' : 'removed'),
          element('td', {}, `last event ${d.lastEventType} at `, at(d.lastEventAt)),
        ),
      ),
    ),
  );
  $('#detail-body').append(...sections.flat());
}

// ---- a facility's remote actions asked for, and its failed commands (issue 28) ----

/** The optional reason recorded with the next remote action (at most 200 characters, as the API takes). */
function reasonInput() {
  return element(
    'label',
    { class: 'reason-input' },
    'Reason (recorded with the action): ',
    element('input', { id: 'remote-reason', type: 'text', maxlength: '200', placeholder: 'optional' }),
  );
}

/** The reason typed, as a remote action's body (none when empty). */
function remoteActionBody() {
  const reason = $('#remote-reason')?.value.trim();
  return reason ? { reason } : undefined;
}

/** A command's status as a status word: settled well (ok), still waiting (warning), failed or expired (error). */
const RESULT_WORDS = {
  pending: 'warning',
  delivered: 'warning',
  acknowledged: 'ok',
  failed: 'error',
  expired: 'error',
};

function resultCell(command) {
  if (!command) return element('td', { class: 'result' }, 'no command');
  return element(
    'td',
    { class: `result status status-${RESULT_WORDS[command.status]}` },
    element('strong', {}, command.status),
    command.failureReason ? ` ${command.failureReason}` : '',
  );
}

function whoAsked(by) {
  return by.kind === 'operator' ? `operator ${by.clientId}` : `account ${by.accountId} (${by.clientId})`;
}

function remoteActionRow(a, facilityId) {
  const what = a.actionGroup ? `${a.actionGroup.name}: ${a.action.split('.')[1]}` : a.action;
  return element(
    'tr',
    { dataset: { remoteActionId: a.id } },
    element('td', {}, timeElement(a.requestedAt, facilityId)),
    element('td', { class: 'action' }, a.wroteCommand ? what : `${what} (repeat: the command underway)`),
    element('td', { class: 'who' }, whoAsked(a.requestedBy)),
    element('td', { class: 'reason' }, a.reason ?? '—'),
    resultCell(a.command),
  );
}

function failedCommandRow(c, facilityId) {
  return element(
    'tr',
    { dataset: { commandId: c.id } },
    element('td', {}, `#${c.sequence}`),
    element('td', {}, c.type),
    element('td', {}, timeElement(c.failedAt, facilityId)),
    element('td', { class: 'reason' }, c.failureReason ?? 'no reason given'),
  );
}

const headRow = (...names) => element('tr', {}, ...names.map((name) => element('th', { scope: 'col' }, name)));

/** The facility's newest remote actions with their results, and its failed commands (newest first). */
async function facilityRecords(facilityId) {
  const [actions, failed] = await Promise.all([
    api('GET', `/facilities/${facilityId}/remote-actions?limit=20`),
    api('GET', `/facilities/${facilityId}/commands?status=failed&limit=1000`),
  ]);
  const newestFailed = failed.slice(-20).reverse();
  return [
    element('h3', {}, 'Remote actions asked for'),
    actions.length === 0
      ? element('p', { id: 'remote-actions' }, 'None in the last 30 days.')
      : element(
          'table',
          { id: 'remote-actions' },
          headRow('Asked at', 'Action', 'Who', 'Reason', 'Result'),
          ...actions.map((a) => remoteActionRow(a, facilityId)),
        ),
    element('h3', {}, `Failed commands (${failed.length})`),
    failed.length === 0
      ? element('p', { id: 'failed-commands' }, 'None in the last 30 days.')
      : element(
          'table',
          { id: 'failed-commands' },
          headRow('Command', 'Type', 'Failed at', 'The controller’s reason'),
          ...newestFailed.map((c) => failedCommandRow(c, facilityId)),
        ),
  ];
}

// ---- maintenance windows (issue 28): a facility's windows, scheduled and cancelled by the operator ----

const MAINTENANCE_MINUTES = 30;

/** The parts of an instant as a wall clock in `timeZone` shows it (2-digit fields). */
function wallParts(instant, timeZone) {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  }).formatToParts(new Date(instant));
  return Object.fromEntries(parts.map((p) => [p.type, p.value]));
}

/** An instant as a datetime-local input's value ("2026-11-27T09:30") in the facility's zone. */
function wallTime(instant, timeZone) {
  const p = wallParts(instant, timeZone);
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
}

/**
 * A datetime-local value read as a wall time in the facility's zone, to the instant (ISO, UTC): the
 * operator schedules in the site's time, whatever the browser's zone. Two passes settle the offset
 * across a daylight-saving change.
 */
function instantOfWallTime(value, timeZone) {
  const [date, time] = value.split('T');
  const [y, m, d] = date.split('-').map(Number);
  const [h, min] = time.split(':').map(Number);
  const wall = Date.UTC(y, m - 1, d, h, min);
  const offsetAt = (instant) => {
    const p = wallParts(instant, timeZone);
    return Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute) - Math.floor(instant / 60_000) * 60_000;
  };
  return new Date(wall - offsetAt(wall - offsetAt(wall))).toISOString();
}

/** Runs a maintenance-window call, says how it went, then shows the facility's page again. */
async function maintenanceCall(label, call) {
  await attempt(label, call);
  await redrawFacility();
}

function maintenanceRow(w, facilityId, facilityName) {
  const at = (iso) => timeElement(iso, facilityId);
  const label = `The maintenance window of ${facilityName} from ${localTime(w.startsAt, facilityId)}`;
  return element(
    'tr',
    { dataset: { windowId: w.id } },
    element('td', { class: `state ${w.state === 'underway' ? 'status status-maintenance' : ''}` }, w.state),
    element('td', {}, at(w.startsAt), ' – ', at(w.endsAt)),
    element('td', { class: 'reason' }, w.reason ?? ''),
    element('td', {}, element('small', {}, w.scheduledBy)),
    element(
      'td',
      {},
      element(
        'button',
        {
          type: 'button',
          dataset: { action: 'cancel-window' },
          onclick: async () => {
            const what = w.state === 'underway' ? 'End it now' : 'Cancel it';
            if (!(await ask(`${label}: ${what.toLowerCase()}?`, what, 'Keep it'))) {
              say(`${label} was kept.`);
              return;
            }
            await maintenanceCall(`${label}: cancel`, () =>
              api('DELETE', `/admin/facilities/${facilityId}/maintenance-windows/${w.id}`),
            );
          },
        },
        w.state === 'underway' ? 'End now' : 'Cancel',
      ),
    ),
  );
}

/** A facility's maintenance windows (underway and to come) and the form that schedules one, in the facility's time. */
async function maintenanceSection(facilityId, facilityName) {
  const windows = await api('GET', `/admin/facilities/${facilityId}/maintenance-windows`);
  const timeZone = state.facilities.get(facilityId)?.timeZone ?? 'UTC';
  const now = Date.now();
  const input = (name, value, attributes = {}) => element('input', { name, value, ...attributes });
  const form = element(
    'form',
    { id: 'maintenance-form', autocomplete: 'off' },
    element(
      'label',
      {},
      `Starts (${timeZone}) `,
      input('startsAt', wallTime(now, timeZone), { type: 'datetime-local', required: '' }),
    ),
    element(
      'label',
      {},
      `Ends (${timeZone}) `,
      input('endsAt', wallTime(now + MAINTENANCE_MINUTES * 60_000, timeZone), {
        type: 'datetime-local',
        required: '',
      }),
    ),
    element('label', {}, 'Reason ', input('reason', '', { maxlength: '200', placeholder: 'Keypad firmware update' })),
    element('button', { type: 'submit' }, 'Schedule'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const fields = new FormData(form);
    const reason = String(fields.get('reason') ?? '').trim();
    void maintenanceCall(`Maintenance at ${facilityName}`, () =>
      api('POST', `/admin/facilities/${facilityId}/maintenance-windows`, {
        startsAt: instantOfWallTime(String(fields.get('startsAt')), timeZone),
        endsAt: instantOfWallTime(String(fields.get('endsAt')), timeZone),
        ...(reason ? { reason } : {}),
      }),
    );
  });
  return [
    element('h3', {}, `Maintenance windows (${windows.length})`),
    element(
      'p',
      {},
      'While a window is underway the gateway and devices show maintenance: a silent controller and offline devices raise nothing; alarms still show.',
    ),
    windows.length
      ? element(
          'table',
          { id: 'maintenance-windows' },
          ...windows.map((w) => maintenanceRow(w, facilityId, facilityName)),
        )
      : element('p', { id: 'maintenance-windows' }, 'None scheduled.'),
    form,
  ];
}

// ---- drift (issue 28): what the controller held that differed from the PMS, found and healed ----

function driftItemText(item) {
  const what = item.change === 'altered' ? `altered: ${item.fields.join(', ')}` : item.change;
  return `${item.kind} ${item.id} ${what}`;
}

function driftRow(d, facilityId) {
  return element(
    'tr',
    { dataset: { driftId: d.id } },
    element('td', { class: `status status-${d.status === 'open' ? 'warning' : 'ok'}` }, d.status),
    element('td', { class: 'found' }, timeElement(d.foundAt, facilityId)),
    element('td', { class: 'healed' }, d.healedAt ? timeElement(d.healedAt, facilityId) : ''),
    element('td', { class: 'items' }, d.items.map(driftItemText).join('; ')),
    element('td', { class: 'corrections' }, `${d.corrections} correction${d.corrections === 1 ? '' : 's'}`),
  );
}

async function driftSection(facilityId) {
  const drifts = await api('GET', `/facilities/${facilityId}/drift?limit=10`);
  return [
    element('h3', {}, `Drift (${drifts.filter((d) => d.status === 'open').length} open)`),
    element(
      'p',
      {},
      'What the controller held that differed from the PMS, found by its digest and corrected by itself.',
    ),
    drifts.length
      ? element('table', { id: 'drifts' }, ...drifts.map((d) => driftRow(d, facilityId)))
      : element('p', { id: 'drifts' }, 'None found.'),
  ];
}

document.addEventListener('DOMContentLoaded', () => {
  $('#sign-in-form').addEventListener('submit', (event) =>
    signIn(event).catch((error) => say(`Sign-in failed: ${error.message}`)),
  );
  $('#sign-out').addEventListener('click', signOut);
  $('#refresh').addEventListener('click', () => show(state.view).catch((error) => say(error.message)));
  for (const tab of document.querySelectorAll('.tab'))
    tab.addEventListener('click', () => show(tab.dataset.view).catch((error) => say(error.message)));
  $('#detail-close').addEventListener('click', () => $('#detail').close());
  $('#confirm-yes').addEventListener('click', () => $('#confirm').close('yes'));
  $('#confirm-no').addEventListener('click', () => $('#confirm').close('no'));
});
