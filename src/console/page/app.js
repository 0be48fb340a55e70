// The support console: a page for support staff to resolve support notifications through the
// admin routes. Plain browser JavaScript, no build step. All data is rendered as text (never as
// HTML); the token lives in this page's memory only.

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

function notificationCard(n) {
  const card = $('#notification-template').content.firstElementChild.cloneNode(true);
  card.dataset.notificationId = n.id;
  if (n.auctionId) card.dataset.auctionId = n.auctionId;
  card.querySelector('.kind').textContent = n.kind;
  card.querySelector('.reason').textContent = n.reason ?? '';
  card.querySelector('.created').textContent = new Date(n.createdAt).toLocaleString();
  card.querySelector('.message').textContent = n.message;
  card.querySelector('.delivery').textContent = n.resolvedAt
    ? `Resolved ${new Date(n.resolvedAt).toLocaleString()} by ${n.resolvedBy}: ${n.resolution}`
    : `Webhook: ${n.delivery.status}${n.delivery.lastError ? ` (${n.delivery.lastError})` : ''}`;
  const actions = card.querySelector('.actions');
  if (!n.resolvedAt) {
    if (n.auctionId)
      actions.append(element('button', { type: 'button', onclick: () => showAuction(n.auctionId) }, 'View auction'));
    if (n.kind === 'AUCTION_PENDING') {
      if (n.reason === 'CHARITY_NOT_ENROLLED' || (n.detail?.reasons ?? []).includes('CHARITY_NOT_ENROLLED')) {
        actions.append(
          element(
            'button',
            {
              type: 'button',
              dataset: { action: 'enrol' },
              onclick: () =>
                run('Enrol the facility', () => api('POST', `/admin/facilities/${n.facilityId}/charity-enrolment`)),
            },
            'Enrol facility in charity programme',
          ),
          element(
            'button',
            {
              type: 'button',
              dataset: { action: 'lien' },
              onclick: () =>
                run('Change the type to Lien', () =>
                  api('PATCH', `/admin/auctions/${n.auctionId}`, { auctionType: 'Lien' }),
                ),
            },
            'Change type to Lien',
          ),
        );
      }
      actions.append(
        element(
          'button',
          {
            type: 'button',
            dataset: { action: 'cancel' },
            onclick: () =>
              run('Cancel the auction', () =>
                api('POST', `/admin/auctions/${n.auctionId}/cancel`, { reason: 'Cancelled by support' }),
              ),
          },
          'Cancel auction',
        ),
      );
    }
    actions.append(
      element(
        'button',
        {
          type: 'button',
          dataset: { action: 'resolve' },
          onclick: () =>
            run('Mark resolved', () =>
              api('POST', `/admin/notifications/${n.id}/resolve`, { resolution: 'Resolved in the support console' }),
            ),
        },
        'Mark resolved',
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

async function show(view) {
  state.view = view;
  for (const tab of document.querySelectorAll('.tab'))
    tab.setAttribute('aria-pressed', String(tab.dataset.view === view));
  const list = $('#list');
  if (view === 'pending') {
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
