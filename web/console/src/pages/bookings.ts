// Bookings: an account's fast-track bookings (filtered by status, paged), one booking
// with its passengers and history, and recording that its pass was used.

import { api, BOOKING_STATUSES, SCOPE_ACCOUNTS, type Account, type Booking } from '../api';
import { fmtTime, h, replace } from '../dom';
import { intParam, link, navigate, withQuery, type Route } from '../router';
import { confirmAction, errorBox, lacksScope, loading, notice, pager, statusBadge } from '../ui';

const LIMIT = 50;

function findByIdForm(): HTMLElement {
  const input = h('input', { type: 'text', name: 'booking_id', class: 'mono', placeholder: 'Booking ID (UUID)', required: true, 'aria-label': 'Booking ID' });
  const form = h('form', { class: 'row', 'data-testid': 'find-booking' }, input, h('button', { class: 'btn', type: 'submit' }, 'Open booking'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    navigate(`/admin/bookings/${encodeURIComponent(input.value.trim())}`);
  });
  return form;
}

export async function bookingsPage({ view, query }: Route): Promise<void> {
  document.title = 'Bookings · Skygate console';
  const missing = lacksScope(SCOPE_ACCOUNTS, 'Browsing bookings');
  if (missing) {
    replace(view, h('div', { class: 'page-head' }, h('h1', null, 'Bookings')), missing);
    return;
  }
  const accountID = query.get('account') ?? '';
  const status = query.get('status') ?? '';
  const offset = intParam(query, 'offset');

  const accountSelect = h('select', { name: 'account', 'aria-label': 'Account' }, h('option', { value: '' }, 'Choose an account…'));
  const statusSelect = h(
    'select',
    { name: 'status', 'aria-label': 'Status' },
    h('option', { value: '' }, 'Any status'),
    BOOKING_STATUSES.map((s) => h('option', { value: s, selected: s === status }, s)),
  );
  const filters = h('form', { class: 'filters card', 'data-testid': 'booking-filters' },
    h('label', null, 'Account', accountSelect),
    h('label', null, 'Status', statusSelect),
    h('div', { class: 'actions' }, h('button', { class: 'btn btn-primary', type: 'submit' }, 'Show bookings')),
  );
  filters.addEventListener('submit', (ev) => {
    ev.preventDefault();
    navigate(withQuery('/admin/bookings', { account: accountSelect.value, status: statusSelect.value }));
  });
  accountSelect.addEventListener('change', () => filters.requestSubmit());
  statusSelect.addEventListener('change', () => filters.requestSubmit());

  const list = h('div');
  replace(
    view,
    h('div', { class: 'page-head' }, h('h1', null, 'Bookings'), findByIdForm()),
    filters,
    list,
  );

  // Fill the account picker (the 500 oldest accounts; a deep link keeps any other).
  let accounts: Account[] = [];
  try {
    accounts = (await api.listAccounts({ limit: 500, offset: 0 })).data;
  } catch (err) {
    replace(list, errorBox(err));
    return;
  }
  for (const a of accounts) accountSelect.append(h('option', { value: a.id, selected: a.id === accountID }, `${a.name}${a.status === 'suspended' ? ' (suspended)' : ''}`));
  if (accountID && !accounts.some((a) => a.id === accountID)) {
    accountSelect.append(h('option', { value: accountID, selected: true }, accountID));
  }

  if (!accountID) {
    replace(list, notice('info', 'Choose an account to see its bookings, or open a booking by its ID.'));
    return;
  }
  replace(list, loading());
  try {
    const page = await api.listBookings(accountID, { status: status || undefined, limit: LIMIT, offset });
    if (page.data.length === 0) {
      replace(list, notice('info', status ? `No ${status} bookings for this account.` : 'This account has no bookings.'));
      return;
    }
    replace(
      list,
      h('p', { class: 'muted' }, 'Bookings of ', link(`/admin/accounts/${encodeURIComponent(accountID)}`, null, page.data[0].account_name), '.'),
      h(
        'table',
        { class: 'table', 'data-testid': 'bookings' },
        h('thead', null, h('tr', null, h('th', null, 'Booking'), h('th', null, 'Status'), h('th', null, 'Fast-track'), h('th', null, 'Service date'), h('th', null, 'Flight'), h('th', null, 'Passengers'), h('th', null, 'Partner reference'), h('th', null, 'Created'))),
        h('tbody', null, page.data.map((b) =>
          h(
            'tr',
            null,
            h('td', { class: 'mono small' }, link(`/admin/bookings/${encodeURIComponent(b.id)}`, null, b.id)),
            h('td', null, statusBadge(b.status)),
            h('td', null, fastTrack(b)),
            h('td', null, b.service_date),
            h('td', null, flight(b)),
            h('td', null, String(b.passengers.length)),
            h('td', null, b.partner_reference || '—'),
            h('td', null, fmtTime(b.created_at)),
          ),
        )),
      ),
      pager(page.pagination, LIMIT, (o) => navigate(withQuery('/admin/bookings', { account: accountID, status, offset: o }))),
    );
  } catch (err) {
    replace(list, errorBox(err));
  }
}

/** fastTrack names the booking's fast-track, its id in a tooltip. */
function fastTrack(b: Booking): HTMLElement {
  return h('span', { title: b.fast_track_id, 'data-testid': 'fast-track-name' }, b.fast_track_name || b.fast_track_id);
}

function flight(b: Booking): string {
  return `${b.flight.number || '—'} (${b.flight.direction})`;
}

export async function bookingPage({ view, params }: Route): Promise<void> {
  document.title = 'Booking · Skygate console';
  replace(view, loading());
  const messages = h('div', { class: 'messages' });
  const body = h('div');

  const draw = (b: Booking) => {
    let complete: HTMLButtonElement | null = null;
    if (b.status === 'Confirmed') {
      const btn = h('button', { class: 'btn btn-primary', type: 'button' }, 'Mark as completed (pass used)');
      btn.addEventListener('click', async () => {
        const ok = await confirmAction({
          title: 'Record that the pass was used?',
          body: 'The booking becomes Completed. This cannot be undone.',
          confirm: 'Mark as completed',
        });
        if (!ok) return;
        try {
          const updated = await api.completeBooking(b.id);
          replace(messages, notice('success', 'The booking is now Completed.'));
          draw(updated);
        } catch (err) {
          replace(messages, errorBox(err));
        }
      });
      complete = btn;
    }
    replace(
      body,
      h('div', { class: 'page-head' }, h('h1', null, 'Booking ', statusBadge(b.status)), h('div', { class: 'head-actions' }, complete)),
      h(
        'dl',
        { class: 'facts card' },
        fact('ID', h('code', null, b.id)),
        fact('Account', link(`/admin/accounts/${encodeURIComponent(b.account_id)}`, { 'data-testid': 'booking-account' }, b.account_name)),
        fact('Fast-track', h('span', null, h('span', { 'data-testid': 'booking-fast-track' }, b.fast_track_name || '(no longer in the catalog)'), ' ', h('code', { class: 'muted small' }, b.fast_track_id))),
        fact('Service date', b.service_date),
        fact('Flight', flight(b)),
        fact('Partner reference', b.partner_reference || '—'),
        fact('Confirm before', fmtTime(b.confirm_before)),
        fact('Created', fmtTime(b.created_at)),
        fact('Updated', fmtTime(b.updated_at)),
      ),
      h('h2', null, 'Passengers'),
      h(
        'table',
        { class: 'table' },
        h('thead', null, h('tr', null, h('th', null, 'Name'), h('th', null, 'Date of birth'), h('th', null, 'Passport'), h('th', null, 'Nationality'), h('th', null, 'Email'), h('th', null, 'Phone'))),
        h('tbody', null, b.passengers.map((p) =>
          h('tr', null,
            h('td', null, `${p.first_name} ${p.last_name}`.trim() || '—'),
            h('td', null, p.date_of_birth ?? '—'),
            h('td', null, p.passport_number ?? '—'),
            h('td', null, p.nationality ?? '—'),
            h('td', null, p.email ?? '—'),
            h('td', null, p.phone ?? '—'),
          ),
        )),
      ),
      h('h2', null, 'Status history'),
      h('ol', { class: 'history' }, b.status_history.map((e) => h('li', null, statusBadge(e.status), ' ', fmtTime(e.at)))),
    );
  };

  replace(view, h('p', { class: 'crumbs' }, link('/admin/bookings', null, '← Bookings')), messages, body);
  try {
    draw(await api.getBooking(params.id));
  } catch (err) {
    replace(body, errorBox(err));
  }
}

function fact(label: string, value: Node | string): HTMLElement[] {
  return [h('dt', null, label), h('dd', null, value)];
}
