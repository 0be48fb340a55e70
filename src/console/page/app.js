// The support console: a page for support staff to resolve support notifications through the
// admin routes, and the operator's facility page — the status list with its colours, a facility's
// devices and alarms, and the remote actions (each confirmed first). Plain browser JavaScript, no
// build step. All data is rendered as text (never as HTML); the token lives in this page's memory only.

const state = { token: null, view: 'open' };
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
  $('#who-text').textContent = `Signed in as ${form.get('clientId')}`;
  $('#who').hidden = false;
  $('#sign-in').hidden = true;
  $('#work').hidden = false;
  say('');
  await show('open');
}

function signOut() {
  state.token = null;
  $('#who').hidden = true;
  $('#sign-in').hidden = false;
  $('#work').hidden = true;
  $('#list').replaceChildren();
  $('#detail').hidden = true;
}

async function run(label, action) {
  try {
    say(`${label}…`, true);
    await action();
    say(`${label}: done.`, true);
    await show(state.view);
  } catch (error) {
    say(`${label} failed: ${error.message}`);
  }
}

/** A button that runs an admin call, then shows the list again. */
function actionButton(action, label, runLabel, call) {
  return element('button', { type: 'button', dataset: { action }, onclick: () => run(runLabel, call) }, label);
}

/** What can be done about one auction held Pending: change its type (a charity one), or cancel it. */
function pendingAuctionActions(item) {
  const buttons = [element('button', { type: 'button', onclick: () => showAuction(item.auctionId) }, 'View auction')];
  if (item.resolution) return buttons;
  if (item.reason === 'CHARITY_NOT_ENROLLED' || (item.detail?.reasons ?? []).includes('CHARITY_NOT_ENROLLED')) {
    buttons.push(
      actionButton('lien', 'Change type to Lien', 'Change the type to Lien', () =>
        api('PATCH', `/admin/auctions/${item.auctionId}`, { auctionType: 'Lien' }),
      ),
    );
  }
  buttons.push(
    actionButton('cancel', 'Cancel auction', 'Cancel the auction', () =>
      api('POST', `/admin/auctions/${item.auctionId}/cancel`, { reason: 'Cancelled by support' }),
    ),
  );
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
    if (n.kind === 'AUCTION_PENDING') actions.append(...pendingAuctionActions(item));
    else
      actions.append(element('button', { type: 'button', onclick: () => showAuction(item.auctionId) }, 'View auction'));
    li.append(' ', actions);
  }
  return li;
}

function notificationCard(n) {
  const card = $('#notification-template').content.firstElementChild.cloneNode(true);
  card.dataset.notificationId = n.id;
  card.dataset.count = String(n.count);
  if (n.facilityId) card.dataset.facilityId = n.facilityId;
  card.querySelector('.kind').textContent = n.kind;
  card.querySelector('.count').textContent = n.count > 1 ? `×${n.count}` : '';
  card.querySelector('.reason').textContent = n.count > 1 ? '' : (n.reason ?? '');
  card.querySelector('.created').textContent =
    n.lastOccurredAt !== n.createdAt
      ? `${new Date(n.createdAt).toLocaleString()} – ${new Date(n.lastOccurredAt).toLocaleString()}`
      : new Date(n.createdAt).toLocaleString();
  card.querySelector('.message').textContent =
    n.count > 1 ? n.message.slice(0, n.message.indexOf('. The first: ') + 1 || undefined) : n.message;
  card.querySelector('.items').append(...n.items.map((item) => notificationItem(n, item)));
  card.querySelector('.more').textContent =
    n.count > n.items.length ? `The first ${n.items.length} of ${n.count} are listed.` : '';
  card.querySelector('.delivery').textContent = n.resolvedAt
    ? `Resolved ${new Date(n.resolvedAt).toLocaleString()} by ${n.resolvedBy}: ${n.resolution}`
    : `Webhook: ${n.delivery.status}${n.delivery.lastError ? ` (${n.delivery.lastError})` : ''}`;
  const actions = card.querySelector('.actions');
  if (!n.resolvedAt) {
    const charity = n.items.some(
      (i) =>
        !i.resolution &&
        (i.reason === 'CHARITY_NOT_ENROLLED' || (i.detail?.reasons ?? []).includes('CHARITY_NOT_ENROLLED')),
    );
    if (n.kind === 'AUCTION_PENDING' && charity && n.facilityId) {
      actions.append(
        actionButton('enrol', 'Enrol facility in charity programme', 'Enrol the facility', () =>
          api('POST', `/admin/facilities/${n.facilityId}/charity-enrolment`),
        ),
      );
    }
    actions.append(
      actionButton('resolve', 'Mark resolved', 'Mark resolved', () =>
        api('POST', `/admin/notifications/${n.id}/resolve`, { resolution: 'Resolved in the support console' }),
      ),
    );
  }
  return card;
}

function auctionRow(a) {
  return element(
    'article',
    { class: 'card', dataset: { auctionId: a.auctionId } },
    element(
      'header',
      {},
      element('strong', {}, `${a.unitId} · ${a.unitName}`),
      element('span', { class: 'reason' }, `${a.status} ${a.pendingReasons.join(', ')}`),
      element('time', {}, new Date(a.createdAt).toLocaleString()),
    ),
    element('p', {}, `Facility ${a.guid ?? a.facilityId} · ${a.auctionType}`),
    element(
      'div',
      { class: 'actions' },
      element('button', { type: 'button', onclick: () => showAuction(a.auctionId) }, 'View auction'),
    ),
  );
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

const localTime = (iso) => new Date(iso).toLocaleString();

/** A webhook subscription's health as a status word: disabled (error), failing (warning), healthy (ok). */
function subscriptionHealth(s) {
  const h = s.health;
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

/** Asks before a remote action: the question and two buttons, in the page (no browser dialog). */
function confirmThen(question, label, action) {
  const box = $('#confirm');
  $('#confirm-text').textContent = question;
  box.hidden = false;
  const close = () => {
    box.hidden = true;
    $('#confirm-yes').onclick = null;
    $('#confirm-no').onclick = null;
  };
  $('#confirm-no').onclick = () => {
    close();
    say(`${label}: not sent.`);
  };
  $('#confirm-yes').onclick = async () => {
    close();
    try {
      say(`${label}…`, true);
      await action();
      say(`${label}: sent to the controller.`, true);
    } catch (error) {
      say(`${label} failed: ${error.message}`);
    }
    await showFacility(state.facility.id, state.facility.name).catch((error) => say(error.message));
  };
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
            () => api('POST', `${base}/${on ? 'enable' : 'disable'}`),
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
  const [status, devices, groups] = await Promise.all([
    api('GET', `/facilities/${id}/status`),
    api('GET', `/facilities/${id}/devices`),
    api('GET', `/facilities/${id}/actiongroups/manual`),
  ]);
  const detail = $('#detail');
  const word = status.gatewayControllerPlatformOverallStatus;
  detail.replaceChildren(
    element('h2', {}, name),
    element(
      'p',
      { class: `status status-${word}`, id: 'overall' },
      element('strong', {}, word),
      ` ${status.gatewayControllerPlatformOverallStatusMessage}`,
    ),
    element('p', {}, `Last heard: ${status.lastSeenAt ? new Date(status.lastSeenAt).toLocaleString() : 'never'}`),
    element('h3', {}, 'Remote actions'),
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
                  () => api('POST', `/facilities/${id}/actiongroups/${g.id}/${action}`),
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
          `${a.eventTypeName} at ${a.unitNumber ? `unit ${a.unitNumber}` : (a.deviceName ?? a.deviceId ?? 'the facility')} since ${new Date(a.since).toLocaleString()}`,
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
          element('td', {}, `last event ${d.lastEventType} at ${new Date(d.lastEventAt).toLocaleString()}`),
        ),
      ),
    ),
  );
  detail.hidden = false;
}

async function show(view) {
  state.view = view;
  for (const tab of document.querySelectorAll('.tab'))
    tab.setAttribute('aria-pressed', String(tab.dataset.view === view));
  const list = $('#list');
  if (view === 'webhooks') {
    const rows = await api('GET', '/admin/webhooks/subscriptions?limit=100');
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
  } else if (view === 'facilities') {
    const rows = await api('GET', '/facilities/statuslist');
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
  } else if (view === 'pending') {
    const page = await api('GET', '/admin/auctions?status=Pending&limit=200');
    list.replaceChildren(
      ...(page.auctions.length ? page.auctions.map(auctionRow) : [element('p', {}, 'No Pending auctions.')]),
    );
  } else {
    const page = await api('GET', `/admin/notifications?state=${view === 'resolved' ? 'resolved' : 'open'}&limit=200`);
    list.replaceChildren(
      ...(page.notifications.length
        ? page.notifications.map(notificationCard)
        : [element('p', { class: 'empty' }, view === 'open' ? 'Nothing needs attention.' : 'None.')]),
    );
  }
}

async function showAuction(auctionId) {
  try {
    const a = await api('GET', `/admin/auctions/${auctionId}`);
    const detail = $('#detail');
    const rows = [
      ['Auction', a.auctionId],
      ['Facility', `${a.guid ?? ''} (${a.facilityId})`],
      ['Unit', `${a.unitId} · ${a.unitName}`],
      ['Type', a.auctionType],
      ['Status', `${a.status} ${a.pendingReasons.join(', ')}`],
      ['Description', a.record.description ?? '—'],
      ['Runs', `${a.record.startsAt ?? '—'} → ${a.record.endsAt ?? '—'}`],
      ['Minimum bid', a.record.minimumBid ?? '—'],
    ];
    detail.replaceChildren(
      element('h2', {}, `Auction of unit ${a.unitId}`),
      element('table', {}, ...rows.map(([k, v]) => element('tr', {}, element('th', {}, k), element('td', {}, v)))),
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
            element('td', {}, new Date(h.at).toLocaleString()),
            element('td', {}, `${h.from ?? 'new'} → ${h.to}`),
            element('td', {}, h.reason),
            element('td', {}, h.actor),
            element('td', {}, h.note ?? ''),
          ),
        ),
      ),
    );
    detail.hidden = false;
  } catch (error) {
    say(`Could not read the auction: ${error.message}`);
  }
}

document.addEventListener('DOMContentLoaded', () => {
  $('#sign-in-form').addEventListener('submit', (event) =>
    signIn(event).catch((error) => say(`Sign-in failed: ${error.message}`)),
  );
  $('#sign-out').addEventListener('click', signOut);
  $('#refresh').addEventListener('click', () => show(state.view).catch((error) => say(error.message)));
  for (const tab of document.querySelectorAll('.tab'))
    tab.addEventListener('click', () => show(tab.dataset.view).catch((error) => say(error.message)));
});
