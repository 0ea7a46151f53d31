// eSIM of one account: its packages (create, edit in four languages with their APN and
// refund window, retire), its pool (upload CSV or JSON with a report per row, counts),
// its balance (credits, refunds, the ledger), and its orders and eSIMs with their
// status and usage. Employees never see activation codes: the admin API does not
// return them.

import {
  api,
  ApiError,
  ESIM_STATUSES,
  LANGUAGES,
  RawBody,
  SCOPE_ACCOUNTS,
  type Account,
  type Balance,
  type ESIM,
  type ESIMPackage,
  type PoolCounts,
} from '../api';
import { fmtTime, h, replace } from '../dom';
import { intParam, link, navigate, withQuery, type Route } from '../router';
import { badge, busy, confirmAction, errorBox, lacksScope, loading, notice, pager, showError } from '../ui';
import { fmtMoney, fractionDigits, majorUnits, minorUnits } from '../money';

const LIMIT = 20;

const LANGUAGE_NAMES: Record<string, string> = { en: 'English', ru: 'Russian', uz: 'Uzbek', kk: 'Kazakh' };

/** fmtBalance shows the available amount and, when bookings hold some, what is reserved. */
function fmtBalance(b: Balance): string {
  const available = fmtMoney(b);
  return b.reserved ? `${available} (${fmtMoney({ amount: b.reserved, currency: b.currency })} reserved)` : available;
}

export function esimStatusBadge(s: string): HTMLElement {
  const kinds: Record<string, string> = { Assigned: 'info', Installed: 'info', Active: 'ok', Depleted: 'bad', Expired: 'muted' };
  return badge(s, kinds[s] ?? 'muted');
}

function usage(e: ESIM): string {
  const u = e.usage;
  if (u.total_mb === null || u.total_mb === undefined) return `${u.used_mb} MB used (unlimited)`;
  return `${u.used_mb} of ${u.total_mb} MB used · ${u.remaining_mb ?? 0} MB left`;
}

export async function esimPage({ view, params, query }: Route): Promise<void> {
  document.title = 'eSIM · Skygate console';
  const missing = lacksScope(SCOPE_ACCOUNTS, 'Managing eSIM');
  if (missing) {
    replace(view, h('h1', null, 'eSIM'), missing);
    return;
  }
  replace(view, loading());
  let account: Account;
  try {
    account = await api.getAccount(params.id);
  } catch (err) {
    replace(view, h('p', null, link('/admin/accounts', null, '← Accounts')), errorBox(err));
    return;
  }
  document.title = `eSIM of ${account.name} · Skygate console`;
  const here = `/admin/accounts/${encodeURIComponent(account.id)}/esim`;
  const messages = h('div', { class: 'messages' });
  const say = (...n: Parameters<typeof notice>) => replace(messages, notice(...n));

  const packages = h('div', { 'data-testid': 'esim-packages' }, loading());
  const packageForm = h('div');
  const pool = h('div', { 'data-testid': 'esim-pool' }, loading());
  const billing = h('div', { 'data-testid': 'esim-billing' }, loading());
  const orders = h('div', { 'data-testid': 'esim-orders' }, loading());
  const esims = h('div', { 'data-testid': 'esims' }, loading());

  const loadPackages = async () => {
    try {
      const cat = await api.esimPackages(account.id);
      const list = cat.packages ?? [];
      if (list.length === 0) {
        replace(packages, notice('info', 'No packages yet: create one below so that the partner can order.'));
        return;
      }
      replace(
        packages,
        h(
          'table',
          { class: 'table' },
          h('thead', null, h('tr', null, h('th', null, 'Name'), h('th', null, 'Countries'), h('th', null, 'Data'), h('th', null, 'Validity'),
            h('th', null, 'Price'), h('th', null, 'Top-up'), h('th', null, 'APN'), h('th', null, 'Refund window'), h('th', null, 'Status'), h('th', null, ''))),
          h('tbody', null, list.map(packageRow)),
        ),
      );
    } catch (err) {
      replace(packages, errorBox(err));
    }
  };

  const packageRow = (p: ESIMPackage) => {
    const edit = h('button', { class: 'btn btn-small', type: 'button' }, 'Edit');
    edit.addEventListener('click', () => {
      replace(packageForm, packageEditor(account, p, done));
      packageForm.scrollIntoView({ block: 'nearest' });
    });
    const toggle = h('button', { class: p.active ? 'btn btn-small btn-danger-outline' : 'btn btn-small', type: 'button' }, p.active ? 'Retire' : 'Offer again');
    toggle.addEventListener('click', async () => {
      const ok = await confirmAction(
        p.active
          ? { title: `Retire ${p.name.en}?`, body: 'The partner no longer sees it and cannot order it. eSIMs already sold keep working.', confirm: 'Retire package', danger: true }
          : { title: `Offer ${p.name.en} again?`, body: 'The partner sees it in its catalog and can order it.', confirm: 'Offer package' },
      );
      if (!ok) return;
      try {
        await api.setESIMPackages(account.id, [editable({ ...p, active: !p.active })]);
        say('success', `${p.name.en} is ${p.active ? 'retired' : 'offered again'}.`);
        await loadPackages();
      } catch (err) {
        replace(messages, errorBox(err));
      }
    });
    return h(
      'tr',
      { 'data-package-id': p.id ?? '' },
      h('td', null, h('strong', null, p.name.en), h('div', { class: 'muted small' }, LANGUAGES.filter((l) => l !== 'en').map((l) => `${l}: ${p.name[l]}`).join(' · '))),
      h('td', null, p.countries.join(', ')),
      h('td', null, p.data_mb === null ? 'Unlimited' : `${p.data_mb} MB`),
      h('td', null, `${p.validity_days} days`),
      h('td', null, fmtMoney(p.price)),
      h('td', null, p.top_up ? 'yes' : 'no'),
      h('td', { 'data-testid': 'package-apn' }, fmtAPN(p.apn)),
      h('td', { 'data-testid': 'package-refund-window' }, fmtRefundWindow(p.refund_window_days)),
      h('td', { 'data-testid': 'package-status' }, p.active ? badge('offered', 'ok') : badge('retired', 'muted')),
      h('td', { class: 'actions' }, edit, toggle),
    );
  };

  const done = (msg: string) => {
    if (msg) say('success', msg);
    else replace(messages);
    replace(packageForm, packageEditor(account, null, done));
    void loadPackages();
  };

  const loadPool = async () => {
    try {
      replace(pool, poolCounts(await api.poolCounts(account.id)));
    } catch (err) {
      replace(pool, errorBox(err));
    }
  };

  const ledgerOffset = intParam(query, 'ledger');
  const loadBilling = async () => {
    try {
      const b = await api.esimBilling(account.id, { limit: LIMIT, offset: ledgerOffset });
      replace(
        billing,
        h('p', { 'data-testid': 'esim-balance' }, h('strong', null, 'Balance: '),
          b.balances.length ? b.balances.map(fmtBalance).join(' · ') : 'nothing yet (credit the account below)'),
        b.ledger.data.length === 0
          ? notice('info', 'The ledger is empty.')
          : [
              h(
                'table',
                { class: 'table', 'data-testid': 'ledger' },
                h('thead', null, h('tr', null, h('th', null, 'When'), h('th', null, 'Kind'), h('th', null, 'Amount'), h('th', null, 'Balance after'),
                  h('th', null, 'Reference'), h('th', null, 'Description'))),
                h('tbody', null, b.ledger.data.map((e) =>
                  h('tr', { 'data-kind': e.kind },
                    h('td', null, fmtTime(e.created_at)),
                    h('td', null, badge(e.kind, e.kind === 'charge' || e.kind === 'reservation' ? 'info' : 'ok')),
                    h('td', { class: 'nowrap' }, fmtMoney(e.amount)),
                    h('td', { class: 'nowrap' }, fmtMoney({ amount: e.balance_after, currency: e.amount.currency })),
                    h('td', { class: 'mono small' }, e.reference || '—'),
                    h('td', null, e.description || '—'),
                  ),
                )),
              ),
              pager(b.ledger.pagination, LIMIT, (o) => navigate(withQuery(here, { ledger: o }))),
            ],
      );
    } catch (err) {
      replace(billing, errorBox(err));
    }
  };

  const loadOrders = async () => {
    try {
      const page = await api.esimOrders(account.id, { limit: LIMIT, offset: 0 });
      if (page.data.length === 0) {
        replace(orders, notice('info', 'No orders yet.'));
        return;
      }
      replace(
        orders,
        h(
          'table',
          { class: 'table' },
          h('thead', null, h('tr', null, h('th', null, 'Order'), h('th', null, 'Placed'), h('th', null, 'Package'), h('th', null, 'Quantity'),
            h('th', null, 'Total'), h('th', null, 'Partner reference'), h('th', null, 'eSIMs'))),
          h('tbody', null, page.data.map((o) =>
            h('tr', { 'data-order-id': o.id },
              h('td', { class: 'mono small' }, o.id),
              h('td', null, fmtTime(o.created_at)),
              h('td', null, o.esims[0]?.package?.name ?? o.package_id),
              h('td', null, String(o.quantity)),
              h('td', { class: 'nowrap' }, fmtMoney(o.total)),
              h('td', null, o.partner_reference || '—'),
              h('td', null, o.esims.map((e) => h('div', { class: 'small' }, h('code', null, e.iccid), ' ', esimStatusBadge(e.status)))),
            ),
          )),
        ),
        page.pagination.total > page.data.length ? h('p', { class: 'muted small' }, `The newest ${page.data.length} of ${page.pagination.total}.`) : null,
      );
    } catch (err) {
      replace(orders, errorBox(err));
    }
  };

  const status = query.get('status') ?? '';
  const esimOffset = intParam(query, 'offset');
  const loadESIMs = async () => {
    const select = h('select', { name: 'status', 'aria-label': 'eSIM status' }, h('option', { value: '' }, 'Any status'),
      ESIM_STATUSES.map((s) => h('option', { value: s, selected: s === status }, s)));
    select.addEventListener('change', () => navigate(withQuery(here, { status: select.value })));
    try {
      const page = await api.esims(account.id, { status: status || undefined, limit: LIMIT, offset: esimOffset });
      replace(
        esims,
        h('div', { class: 'row' }, h('label', null, 'Status', select)),
        page.data.length === 0
          ? notice('info', status ? `No ${status} eSIMs.` : 'No eSIMs sold yet.')
          : [
              h(
                'table',
                { class: 'table' },
                h('thead', null, h('tr', null, h('th', null, 'ICCID'), h('th', null, 'Status'), h('th', null, 'Package'), h('th', null, 'Usage'),
                  h('th', null, 'Installed'), h('th', null, 'Activated'), h('th', null, 'Expires'))),
                h('tbody', null, page.data.map((e) =>
                  h('tr', { 'data-iccid': e.iccid },
                    h('td', { class: 'mono small' }, e.iccid),
                    h('td', null, esimStatusBadge(e.status)),
                    h('td', null, e.package?.name ?? e.package_id),
                    h('td', { 'data-testid': 'esim-usage' }, usage(e)),
                    h('td', null, fmtTime(e.installed_at)),
                    h('td', null, fmtTime(e.activated_at)),
                    h('td', null, fmtTime(e.expires_at)),
                  ),
                )),
              ),
              pager(page.pagination, LIMIT, (o) => navigate(withQuery(here, { status, offset: o }))),
            ],
      );
    } catch (err) {
      replace(esims, errorBox(err));
    }
  };

  replace(
    view,
    h('p', { class: 'crumbs' }, link(`/admin/accounts/${encodeURIComponent(account.id)}`, null, `← ${account.name}`)),
    h('div', { class: 'page-head' }, h('div', null, h('h1', null, `eSIM · ${account.name}`),
      h('p', { class: 'muted small' }, 'Packages, pool and balance make the account able to sell; orders and eSIMs show what it sold.'))),
    messages,
    h('h2', null, 'Packages'),
    packages,
    packageForm,
    h('h2', null, 'Pool'),
    pool,
    poolUpload(account, () => void loadPool()),
    h('h2', null, 'Balance and ledger'),
    billing,
    creditForm(account, (msg) => {
      say('success', msg);
      void loadBilling();
    }),
    h('h2', null, 'Orders'),
    orders,
    h('h2', null, 'eSIMs'),
    esims,
  );
  replace(packageForm, packageEditor(account, null, done));
  await Promise.all([loadPackages(), loadPool(), loadBilling(), loadOrders(), loadESIMs()]);
}

/** editable is the part of a package the admin API takes; a package sent back keeps its APN and refund window. */
function editable(p: ESIMPackage): ESIMPackage {
  const { id, name, countries, data_mb, validity_days, price, top_up, active, apn, refund_window_days } = p;
  return { id, name, countries, data_mb, validity_days, price, top_up, active, apn: apn ?? null, refund_window_days };
}

/** fmtAPN shows a package's APN, or that the network sets it; a password is never shown. */
function fmtAPN(apn: ESIMPackage['apn']): HTMLElement {
  if (!apn) return h('span', { class: 'muted' }, 'automatic');
  const extra = [apn.username ? `user ${apn.username}` : '', apn.password ? 'password set' : ''].filter(Boolean).join(' · ');
  return h('span', null, h('code', null, apn.name), extra ? h('div', { class: 'muted small' }, extra) : null);
}

/** fmtRefundWindow shows how long an unused eSIM of a package may be canceled for a refund. */
function fmtRefundWindow(days: number | undefined): string {
  const d = days ?? DEFAULT_REFUND_WINDOW_DAYS;
  if (d === 0) return 'no refunds';
  return d === 1 ? '1 day' : `${d} days`;
}

/** DEFAULT_REFUND_WINDOW_DAYS is the window of a package saved without one. */
const DEFAULT_REFUND_WINDOW_DAYS = 30;

/** packageEditor is the form of a new package (p null) or of one to change. */
function packageEditor(account: Account, p: ESIMPackage | null, done: (msg: string) => void): HTMLElement {
  const names = LANGUAGES.map((l) =>
    h('input', { type: 'text', name: `name_${l}`, required: true, maxlength: 128, value: p?.name[l] ?? '' }),
  );
  const countries = h('input', { type: 'text', name: 'countries', required: true, placeholder: 'UZ, KZ', value: p?.countries.join(', ') ?? '' });
  const data = h('input', { type: 'number', name: 'data_mb', min: 1, placeholder: 'empty: unlimited', value: p?.data_mb ?? '' });
  const validity = h('input', { type: 'number', name: 'validity_days', min: 1, required: true, value: p?.validity_days ?? '' });
  const price = h('input', { type: 'text', name: 'price', required: true, inputmode: 'decimal', placeholder: '4.50', value: p ? majorUnits(p.price) : '' });
  const currency = h('input', { type: 'text', name: 'currency', required: true, maxlength: 3, value: p?.price.currency ?? 'USD' });
  const topUp = h('input', { type: 'checkbox', name: 'top_up', checked: p?.top_up ?? false });
  const active = h('input', { type: 'checkbox', name: 'active', checked: p?.active ?? true });
  const apnName = h('input', { type: 'text', name: 'apn_name', maxlength: 100, placeholder: 'empty: the network sets it', value: p?.apn?.name ?? '' });
  const apnUsername = h('input', { type: 'text', name: 'apn_username', maxlength: 64, autocomplete: 'off', value: p?.apn?.username ?? '' });
  const apnPassword = h('input', { type: 'text', name: 'apn_password', maxlength: 64, autocomplete: 'off', value: p?.apn?.password ?? '' });
  const refundWindow = h('input', { type: 'number', name: 'refund_window_days', min: 0, max: 365, required: true,
    value: p?.refund_window_days ?? DEFAULT_REFUND_WINDOW_DAYS });
  const formError = h('div');
  const cancel = p ? h('button', { class: 'btn', type: 'button', onclick: () => done('') }, 'Cancel') : null;
  const form = h(
    'form',
    { class: 'card form', 'data-testid': p ? 'edit-package' : 'create-package' },
    h('h3', null, p ? `Edit ${p.name.en}` : 'New package'),
    h('fieldset', null, h('legend', null, 'Name in every language'),
      h('div', { class: 'checks' }, LANGUAGES.map((l, i) => h('label', null, `Name (${LANGUAGE_NAMES[l]})`, names[i])))),
    h('div', { class: 'checks' },
      h('label', null, 'Countries (ISO codes)', countries),
      h('label', null, 'Data (MB)', data),
      h('label', null, 'Validity (days)', validity),
      h('label', null, 'Price', price),
      h('label', null, 'Currency', currency),
    ),
    h('fieldset', null, h('legend', null, 'Access point (shown in the eSIM\'s instructions)'),
      h('div', { class: 'checks' },
        h('label', null, 'APN name', apnName),
        h('label', null, 'APN username', apnUsername),
        h('label', null, 'APN password', apnPassword),
      )),
    h('div', { class: 'checks' },
      h('label', null, 'Refund window (days)', refundWindow),
      h('p', { class: 'muted small' }, 'How long after its order an unused eSIM may be canceled for a refund; 0: never.'),
    ),
    h('label', { class: 'check' }, topUp, ' Usable as a top-up of an eSIM'),
    h('label', { class: 'check' }, active, ' Offered to the partner (unchecked: retired)'),
    formError,
    h('div', { class: 'actions' }, cancel, h('button', { class: 'btn btn-primary', type: 'submit' }, p ? 'Save package' : 'Create package')),
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    showError(formError, null);
    const cur = currency.value.trim().toUpperCase();
    const amount = minorUnits(price.value, cur);
    if (amount === null) {
      replace(formError, notice('warning', `The price must be an amount such as 4.50, with at most ${fractionDigits(cur)} decimals for ${cur}.`));
      return;
    }
    const apn = apnName.value.trim();
    if (!apn && (apnUsername.value || apnPassword.value)) {
      replace(formError, notice('warning', 'An APN username or password needs the APN name; leave all three empty when the network sets the APN.'));
      return;
    }
    const pkg: ESIMPackage = {
      ...(p?.id ? { id: p.id } : {}),
      name: Object.fromEntries(LANGUAGES.map((l, i) => [l, names[i].value.trim()])) as ESIMPackage['name'],
      countries: countries.value.split(/[\s,]+/).map((c) => c.trim().toUpperCase()).filter(Boolean),
      data_mb: data.value.trim() === '' ? null : Number(data.value),
      validity_days: Number(validity.value),
      price: { amount, currency: cur },
      top_up: topUp.checked,
      active: active.checked,
      apn: apn ? { name: apn, username: apnUsername.value, password: apnPassword.value } : null,
      refund_window_days: Number(refundWindow.value),
    };
    try {
      await busy(form, () => api.setESIMPackages(account.id, [pkg]));
      done(p ? `Package ${pkg.name.en} saved.` : `Package ${pkg.name.en} created.`);
    } catch (err) {
      showError(formError, err);
    }
  });
  return form;
}

function poolCounts(c: PoolCounts): HTMLElement {
  const statuses = Object.keys(c.by_status).sort();
  return h(
    'p',
    { 'data-testid': 'pool-counts' },
    h('strong', null, `${c.total} profiles`),
    statuses.length ? ': ' : ' (upload some below)',
    statuses.map((s, i) => [i ? ' · ' : '', h('span', { 'data-status': s }, `${c.by_status[s]} ${s}`)]),
  );
}

/** poolUpload sends profiles as CSV or JSON; a refused upload shows one line per problem row. */
function poolUpload(account: Account, uploaded: () => void): HTMLElement {
  const text = h('textarea', { rows: 6, class: 'mono', name: 'profiles', required: true, spellcheck: 'false',
    placeholder: 'iccid,smdp_address,matching_id\n8999…,smdp.example.com,MATCH-1' });
  const format = h('select', { name: 'format' }, h('option', { value: 'text/csv' }, 'CSV'), h('option', { value: 'application/json' }, 'JSON'));
  const file = h('input', { type: 'file', accept: '.csv,.json,text/csv,application/json', 'aria-label': 'Profiles file' });
  file.addEventListener('change', async () => {
    const f = file.files?.[0];
    if (!f) return;
    text.value = await f.text();
    format.value = /\.json$/i.test(f.name) || f.type === 'application/json' ? 'application/json' : 'text/csv';
  });
  const report = h('div');
  const form = h(
    'form',
    { class: 'card form', 'data-testid': 'pool-upload' },
    h('h3', null, 'Upload profiles'),
    h('p', { class: 'muted small' },
      'CSV with the header iccid,smdp_address,matching_id, or a JSON array of {iccid, smdp_address, matching_id}. ',
      'All or nothing: one bad row refuses the upload. Matching IDs are encrypted at rest and never shown again.'),
    h('div', { class: 'row' }, h('label', null, 'File', file), h('label', null, 'Format', format)),
    h('label', null, 'Profiles', text),
    report,
    h('div', { class: 'actions' }, h('button', { class: 'btn btn-primary', type: 'submit' }, 'Upload')),
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    replace(report);
    try {
      const res = await busy(form, () => api.importPool(account.id, new RawBody(text.value, format.value)));
      replace(report, notice('success', `Imported ${res.imported} ${res.imported === 1 ? 'profile' : 'profiles'}. The pool now holds ${res.pool.total}.`));
      text.value = '';
      file.value = '';
      uploaded();
    } catch (err) {
      replace(report, uploadReport(err));
    }
  });
  return form;
}

/**
 * uploadReport shows a refused upload: one row per problem, with the profile's number
 * in the upload (1 for the first) and the field; a CSV problem's message names its line.
 */
function uploadReport(err: unknown): HTMLElement {
  if (!(err instanceof ApiError) || err.fields.length === 0) return errorBox(err);
  const rows = err.fields.map((f) => {
    const m = /^\[(\d+)\]\.?(.*)$/.exec(f.field);
    return { row: m ? String(Number(m[1]) + 1) : '—', field: m ? m[2] : f.field, message: f.message };
  });
  return h(
    'div',
    { class: 'alert alert-error', role: 'alert', 'data-testid': 'pool-report' },
    h('strong', null, `Nothing was imported: ${rows.length} ${rows.length === 1 ? 'problem' : 'problems'}`),
    err.detail ? h('p', null, err.detail) : null,
    h(
      'table',
      { class: 'table' },
      h('thead', null, h('tr', null, h('th', null, 'Profile'), h('th', null, 'Field'), h('th', null, 'Problem'))),
      h('tbody', null, rows.map((r) => h('tr', null, h('td', null, r.row), h('td', null, h('code', null, r.field || '—')), h('td', null, r.message)))),
    ),
    err.requestId ? h('p', { class: 'muted small' }, 'Request ID: ', h('code', null, err.requestId)) : null,
  );
}

/** creditForm adds prepaid funds (credit) or gives money back (refund, naming what). */
function creditForm(account: Account, done: (msg: string) => void): HTMLElement {
  const kind = h('select', { name: 'kind' }, h('option', { value: 'credit' }, 'Credit (prepaid funds)'), h('option', { value: 'refund' }, 'Refund (money given back)'));
  const amount = h('input', { type: 'text', name: 'amount', required: true, inputmode: 'decimal', placeholder: '100.00' });
  const currency = h('input', { type: 'text', name: 'currency', required: true, maxlength: 3, value: 'USD' });
  const reference = h('input', { type: 'text', name: 'reference', maxlength: 128, placeholder: 'invoice, order or top-up id' });
  const description = h('input', { type: 'text', name: 'description', maxlength: 256, placeholder: 'shown in the ledger' });
  const formError = h('div');
  const form = h(
    'form',
    { class: 'card form', 'data-testid': 'credit-form' },
    h('h3', null, 'Credit or refund'),
    h('div', { class: 'checks' },
      h('label', null, 'Kind', kind),
      h('label', null, 'Amount', amount),
      h('label', null, 'Currency', currency),
      h('label', null, 'Reference', reference),
      h('label', null, 'Description', description),
    ),
    formError,
    h('div', { class: 'actions' }, h('button', { class: 'btn btn-primary', type: 'submit' }, 'Add to the balance')),
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    showError(formError, null);
    const cur = currency.value.trim().toUpperCase();
    const minor = minorUnits(amount.value, cur);
    if (minor === null || minor === 0) {
      replace(formError, notice('warning', 'The amount must be positive, such as 100.00.'));
      return;
    }
    const money = { amount: minor, currency: cur };
    try {
      const e = await busy(form, () =>
        api.credit(account.id, { amount: money, kind: kind.value as 'credit' | 'refund', reference: reference.value.trim(), description: description.value.trim() }),
      );
      form.reset();
      currency.value = cur;
      done(`${e.kind === 'refund' ? 'Refund' : 'Credit'} of ${fmtMoney(money)} recorded; the balance is ${fmtMoney({ amount: e.balance_after, currency: cur })}.`);
    } catch (err) {
      showError(formError, err);
    }
  });
  return form;
}
