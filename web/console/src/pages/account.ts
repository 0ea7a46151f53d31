// One account: its status, its applications (create with a one-time secret, rotate the
// secret, delete), its fast-track prices, and its webhook subscription with its recent
// deliveries.

import { api, B2B_SCOPES, SCOPE_ACCOUNTS, SCOPE_APPLICATIONS, type Account, type Application, type WebhookSubscription } from '../api';
import { hasScope } from '../auth';
import { fmtTime, h, replace } from '../dom';
import { link, type Route } from '../router';
import { badge, busy, confirmAction, errorBox, lacksScope, loading, notice, scopeList, secretPanel, showError, statusBadge } from '../ui';
import { setStatus } from './accounts';
import { openCertificate } from './certificate';
import { priceSection } from './prices';

const LIMIT = 100;

export async function accountPage({ view, params, query }: Route): Promise<void> {
  document.title = 'Account · Skygate console';
  replace(view, loading());
  let account: Account;
  const canAccounts = hasScope(SCOPE_ACCOUNTS);
  if (canAccounts) {
    try {
      account = await api.getAccount(params.id);
    } catch (err) {
      replace(view, h('p', null, link('/admin/accounts', null, '← Accounts')), errorBox(err));
      return;
    }
  } else {
    // An application admin may manage the account's applications without reading it.
    account = { id: params.id, name: 'Account', status: 'active', created_at: '', updated_at: '' };
  }
  document.title = `${account.name} · Skygate console`;

  const messages = h('div', { class: 'messages' });
  if (query.get('created')) messages.append(notice('success', `Account ${account.name} created. Add an application to give the partner credentials.`));
  const head = h('div');
  const drawHead = () => {
    if (!canAccounts) {
      replace(head, h('div', { class: 'page-head' }, h('div', null, h('h1', null, 'Account'), h('p', { class: 'muted small' }, 'ID ', h('code', null, account.id)))));
      return;
    }
    const toggle = h(
      'button',
      { class: account.status === 'active' ? 'btn btn-danger-outline' : 'btn', type: 'button', 'data-testid': 'account-status-toggle' },
      account.status === 'active' ? 'Suspend account' : 'Reactivate account',
    );
    toggle.addEventListener('click', async () => {
      try {
        const updated = await setStatus(account);
        if (updated) {
          account = updated;
          replace(messages, notice('success', `${account.name} is now ${account.status}.`));
          drawHead();
        }
      } catch (err) {
        replace(messages, errorBox(err));
      }
    });
    replace(
      head,
      h(
        'div',
        { class: 'page-head' },
        h('div', null, h('h1', null, account.name, ' ', h('span', { 'data-testid': 'account-status' }, statusBadge(account.status))),
          h('p', { class: 'muted small' }, 'ID ', h('code', null, account.id), ' · created ', fmtTime(account.created_at), ' · updated ', fmtTime(account.updated_at))),
        h('div', { class: 'head-actions' }, toggle),
      ),
      account.status === 'suspended'
        ? notice('warning', 'This account is suspended: its tokens do not work and it cannot get new ones.')
        : null,
    );
  };
  drawHead();

  const hooks = h('div', { 'data-testid': 'webhooks' }, loading());
  const secretSlot = h('div');
  const certSlot = h('div');
  const list = h('div', null, loading());
  const prices = canAccounts ? priceSection(account) : null;

  const loadApps = async () => {
    try {
      const page = await api.listApplications(account.id, { limit: LIMIT, offset: 0 });
      if (page.data.length === 0) {
        replace(list, notice('info', 'No applications yet. Create one below to issue a client ID and secret.'));
        return;
      }
      replace(
        list,
        h(
          'table',
          { class: 'table', 'data-testid': 'applications' },
          h('thead', null, h('tr', null, h('th', null, 'Name'), h('th', null, 'Client ID'), h('th', null, 'Secrets'), h('th', null, 'Scopes'), h('th', null, 'Mode'), h('th', null, 'Created'), h('th', null, ''))),
          h('tbody', null, page.data.map(appRow)),
        ),
        page.pagination.total > page.data.length ? h('p', { class: 'muted small' }, `Showing the first ${page.data.length} of ${page.pagination.total}.`) : null,
      );
    } catch (err) {
      replace(list, errorBox(err));
    }
  };

  const appRow = (app: Application) => {
    const rotate = h('button', { class: 'btn btn-small', type: 'button' }, 'Rotate secret');
    rotate.addEventListener('click', async () => {
      const revoke = h('input', { type: 'checkbox', 'data-testid': 'revoke-tokens' }) as HTMLInputElement;
      const grace = h(
        'select',
        { 'data-testid': 'grace-period' },
        GRACE_PERIODS.map(([seconds, label]) => h('option', { value: String(seconds), selected: seconds === DEFAULT_GRACE }, label)),
      ) as HTMLSelectElement;
      // Revoking the tokens is for a leaked secret: the old one stops at once too.
      revoke.addEventListener('change', () => {
        grace.disabled = revoke.checked;
        if (revoke.checked) grace.value = '0';
      });
      const ok = await confirmAction({
        title: `Rotate the secret of ${app.name}?`,
        body: 'The new secret is shown once and works at once. The current secret keeps working for new tokens during the grace period, so the partner can deploy the new one without downtime.',
        extra: h(
          'div',
          null,
          h('label', null, 'The current secret keeps working ', grace),
          h('label', { class: 'check' }, revoke, ' Also revoke every token issued so far: they stop working within a second, and so does the current secret (use it when the secret leaked).'),
        ),
        confirm: 'Rotate secret',
        danger: true,
      });
      if (!ok) return;
      try {
        const withSecret = await api.rotateSecret(app.id, { grace_seconds: Number(grace.value), revoke_tokens: revoke.checked || undefined });
        replace(secretSlot, secretPanel(withSecret, `New secret for ${app.name}`, () => replace(secretSlot)));
        secretSlot.scrollIntoView({ block: 'nearest' });
        await loadApps();
      } catch (err) {
        replace(messages, errorBox(err));
      }
    });
    const cert = h('button', { class: 'btn btn-small', type: 'button' }, 'Client certificate');
    cert.addEventListener('click', () => openCertificate(certSlot, app, () => void loadApps()));
    const del = h('button', { class: 'btn btn-small btn-danger-outline', type: 'button' }, 'Delete');
    del.addEventListener('click', async () => {
      const ok = await confirmAction({
        title: `Delete ${app.name}?`,
        body: 'Its client can get no new tokens. This cannot be undone.',
        confirm: 'Delete application',
        danger: true,
      });
      if (!ok) return;
      try {
        await api.deleteApplication(app.id);
        replace(messages, notice('success', `Application ${app.name} deleted.`));
        await loadApps();
      } catch (err) {
        replace(messages, errorBox(err));
      }
    });
    return h(
      'tr',
      { 'data-application-id': app.id },
      h('td', null, app.name, app.client_cert_sha256 ? h('div', { class: 'muted small', title: app.client_cert_sha256, 'data-testid': 'certificate-bound' }, 'certificate-bound') : null),
      h('td', { class: 'mono small' }, app.client_id),
      h('td', { 'data-testid': 'secrets' }, secretsCell(app)),
      h('td', null, scopeList(app)),
      h('td', null, app.sandbox ? badge('sandbox', 'info') : badge('live', 'muted')),
      h('td', null, fmtTime(app.created_at)),
      h('td', { class: 'actions' }, rotate, cert, del),
    );
  };

  replace(
    view,
    h('p', { class: 'crumbs' }, link('/admin/accounts', null, '← Accounts')),
    head,
    messages,
    h(
      'div',
      { class: 'subnav' },
      canAccounts ? link(`/admin/accounts/${encodeURIComponent(account.id)}/esim`, { 'data-testid': 'esim-link' }, 'eSIM: packages, pool, balance, orders') : null,
      link(`/admin/bookings?account=${encodeURIComponent(account.id)}`, null, 'Bookings of this account'),
      link(`/admin/audit?account_id=${encodeURIComponent(account.id)}`, null, 'Audit log of this account'),
    ),
    h('h2', null, 'Applications'),
    lacksScope(SCOPE_APPLICATIONS, 'Managing applications') ?? [
      secretSlot,
      certSlot,
      list,
      createForm(account, (created) => {
        replace(secretSlot, secretPanel(created, `Application ${created.name} created`, () => replace(secretSlot)));
        secretSlot.scrollIntoView({ block: 'nearest' });
        void loadApps();
      }),
    ],
    prices?.element ?? [h('h2', null, 'Fast-track prices'), lacksScope(SCOPE_ACCOUNTS, 'Setting fast-track prices')],
    h('h2', null, 'Webhook subscription'),
    lacksScope(SCOPE_ACCOUNTS, 'Reading the webhook subscription') ?? hooks,
  );
  await Promise.all([hasScope(SCOPE_APPLICATIONS) ? loadApps() : null, prices?.load(), canAccounts ? loadHooks(account, hooks) : null]);
}

/** GRACE_PERIODS are the grace periods a rotation offers, in seconds, with their labels. */
const GRACE_PERIODS: [number, string][] = [
  [0, 'not at all (stops at once)'],
  [3600, 'for 1 hour'],
  [86400, 'for 1 day'],
  [7 * 86400, 'for 7 days'],
  [30 * 86400, 'for 30 days'],
];
const DEFAULT_GRACE = 86400;

/**
 * secretsCell shows which secrets work: the current one and, after a rotation with a
 * grace period, the previous one until its expiry (or when it stopped).
 */
function secretsCell(app: Application): Node[] {
  const current = h('div', null, badge('current', 'ok'));
  const until = app.previous_secret_expires_at;
  if (!until) return [current];
  const valid = new Date(until).getTime() > Date.now();
  return [
    current,
    h(
      'div',
      { class: 'muted small', 'data-testid': valid ? 'previous-secret' : 'previous-secret-expired' },
      valid ? 'previous secret valid until ' : 'previous secret expired ',
      fmtTime(until),
    ),
  ];
}

const DELIVERIES = 20;

/**
 * disabledNotice says why and when Skygate disabled a subscription: what the partner
 * also reads as a webhook.subscription.disabled event in its event feed.
 */
function disabledNotice(sub: WebhookSubscription): HTMLElement {
  const why = sub.disabled_reason === 'gone'
    ? 'the endpoint answered 410 Gone'
    : sub.disabled_reason === 'failing'
      ? 'its deliveries failed for 72 hours with no success'
      : 'no reason recorded';
  return h('div', { class: 'small', 'data-testid': 'webhook-disabled' },
    'Disabled ', sub.disabled_at ? fmtTime(sub.disabled_at) : null, `: ${why}. The partner resumes it with enable, change-url or rotate-secret.`);
}

/** loadHooks shows the account's subscription and its most recent deliveries. */
async function loadHooks(account: Account, slot: HTMLElement): Promise<void> {
  try {
    const subs = (await api.webhooks(account.id)).data;
    if (subs.length === 0) {
      replace(slot, notice('info', 'No webhook subscription: the partner creates one with POST /api/v1/b2b/webhooks.'));
      return;
    }
    const parts = await Promise.all(subs.map(async (sub) => {
      const page = await api.webhookDeliveries(account.id, sub.id, { limit: DELIVERIES, offset: 0 });
      return [
        h('dl', { class: 'facts card', 'data-testid': 'webhook' },
          h('dt', null, 'URL'), h('dd', { class: 'mono break' }, sub.url),
          h('dt', null, 'Status'), h('dd', { 'data-testid': 'webhook-status' }, sub.active ? badge('active', 'ok') : badge('inactive', 'bad'),
            sub.active ? null : disabledNotice(sub)),
          h('dt', null, 'Event types'), h('dd', { 'data-testid': 'webhook-event-types' },
            sub.event_types.length === 0 ? 'all' : h('code', null, sub.event_types.join(', '))),
          h('dt', null, 'ID'), h('dd', null, h('code', null, sub.id)),
          h('dt', null, 'Created'), h('dd', null, fmtTime(sub.created_at)),
          h('dt', null, 'Updated'), h('dd', null, fmtTime(sub.updated_at)),
        ),
        h('h3', null, `Recent deliveries (${page.pagination.total} in all)`),
        page.data.length === 0
          ? notice('info', 'Nothing delivered yet.')
          : h('table', { class: 'table', 'data-testid': 'webhook-deliveries' },
              h('thead', null, h('tr', null, h('th', null, 'Event'), h('th', null, 'Status'), h('th', null, 'Attempts'), h('th', null, 'Last answer'),
                h('th', null, 'Next attempt'), h('th', null, 'Created'))),
              h('tbody', null, page.data.map((d) =>
                h('tr', { 'data-event-type': d.event_type, 'data-status': d.status },
                  h('td', null, h('code', null, d.event_type)),
                  h('td', null, badge(d.status, d.status === 'succeeded' ? 'ok' : d.status === 'failed' ? 'bad' : 'info')),
                  h('td', null, String(d.attempt_count)),
                  h('td', null, d.last_status_code ? `HTTP ${d.last_status_code}` : '—', d.last_error ? h('div', { class: 'muted small' }, d.last_error) : null),
                  h('td', null, fmtTime(d.next_attempt_at)),
                  h('td', null, fmtTime(d.created_at)),
                ),
              )),
            ),
      ];
    }));
    replace(slot, parts);
  } catch (err) {
    replace(slot, errorBox(err));
  }
}

function createForm(account: Account, done: (app: Awaited<ReturnType<typeof api.createApplication>>) => void): HTMLElement {
  const name = h('input', { type: 'text', name: 'name', required: true, maxlength: 128, placeholder: 'e.g. Booking website' });
  const scopes = B2B_SCOPES.map(({ scope, label }) =>
    h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'scope', value: scope }), ' ', label, ' ', h('code', { class: 'muted small' }, scope)),
  );
  const sandbox = h('input', { type: 'checkbox', name: 'sandbox' });
  const cert = h('input', { type: 'text', name: 'client_cert_sha256', class: 'mono', placeholder: 'base64url SHA-256 of the certificate DER (optional)' });
  const formError = h('div');
  const form = h(
    'form',
    { class: 'card form', 'data-testid': 'create-application' },
    h('h3', null, 'New application'),
    h('label', null, 'Name', name),
    h('fieldset', null, h('legend', null, 'Allowed scopes'), h('div', { class: 'checks' }, scopes)),
    h('label', { class: 'check' }, sandbox, ' Sandbox: may call the sandbox routes'),
    h('details', null, h('summary', null, 'Certificate binding (optional)'), h('label', null, 'Client certificate SHA-256 (x5t#S256)', cert)),
    formError,
    h('div', { class: 'actions' }, h('button', { class: 'btn btn-primary', type: 'submit' }, 'Create application')),
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    showError(formError, null);
    const allowed = Array.from(form.querySelectorAll<HTMLInputElement>('input[name="scope"]:checked'), (c) => c.value);
    if (allowed.length === 0) {
      replace(formError, notice('warning', 'Choose at least one scope.'));
      return;
    }
    try {
      const created = await busy(form, () =>
        api.createApplication(account.id, {
          name: name.value.trim(),
          allowed_scopes: allowed,
          sandbox: sandbox.checked,
          ...(cert.value.trim() ? { client_cert_sha256: cert.value.trim() } : {}),
        }),
      );
      form.reset();
      done(created);
    } catch (err) {
      showError(formError, err);
    }
  });
  return form;
}
