// The audit log: every admin write, newest first, filtered by actor, action, account
// and target, and paged. Filters live in the URL so a filtered view can be shared.

import { api, SCOPE_ACCOUNTS, SCOPE_APPLICATIONS, type AuditEvent } from '../api';
import { hasScope } from '../auth';
import { fmtTime, h, replace } from '../dom';
import { intParam, link, navigate, withQuery, type Route } from '../router';
import { errorBox, loading, notice, pager } from '../ui';

const LIMIT = 50;

const KNOWN_ACTIONS = [
  'account.create',
  'account.update',
  'application.create',
  'application.delete',
  'application.rotate_secret',
  'application.certificate.issue',
  'application.certificate.bind',
  'booking.complete',
  'esim.packages.set',
  'esim.pool.import',
  'esim.credit',
];

const FILTERS = [
  { name: 'actor', label: 'Actor (employee sub)' },
  { name: 'action', label: 'Action' },
  { name: 'account_id', label: 'Account ID' },
  { name: 'target_id', label: 'Target ID' },
] as const;

export async function auditPage({ view, query }: Route): Promise<void> {
  document.title = 'Audit log · Skygate console';
  if (!hasScope(SCOPE_ACCOUNTS) && !hasScope(SCOPE_APPLICATIONS)) {
    replace(view, h('div', { class: 'page-head' }, h('h1', null, 'Audit log')),
      notice('warning', h('strong', null, 'Not available to your role. '), 'The audit log needs ', h('code', null, SCOPE_ACCOUNTS), ' or ', h('code', null, SCOPE_APPLICATIONS), ', which your sign-in did not grant.'));
    return;
  }
  const offset = intParam(query, 'offset');
  const current: Record<string, string> = {};
  for (const f of FILTERS) current[f.name] = query.get(f.name) ?? '';

  const inputs = FILTERS.map((f) =>
    h('input', {
      type: 'text',
      name: f.name,
      value: current[f.name],
      class: f.name.endsWith('_id') ? 'mono' : null,
      list: f.name === 'action' ? 'audit-actions' : null,
      'aria-label': f.label,
    }),
  );
  const form = h(
    'form',
    { class: 'filters card', 'data-testid': 'audit-filters' },
    FILTERS.map((f, i) => h('label', null, f.label, inputs[i])),
    h('datalist', { id: 'audit-actions' }, KNOWN_ACTIONS.map((a) => h('option', { value: a }))),
    h(
      'div',
      { class: 'actions' },
      h('button', { class: 'btn btn-primary', type: 'submit' }, 'Filter'),
      h('button', { class: 'btn', type: 'button', onclick: () => navigate('/admin/audit') }, 'Clear'),
    ),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const q: Record<string, string> = {};
    FILTERS.forEach((f, i) => (q[f.name] = inputs[i].value.trim()));
    navigate(withQuery('/admin/audit', q));
  });

  const list = h('div', null, loading());
  replace(view, h('div', { class: 'page-head' }, h('h1', null, 'Audit log')), form, list);

  try {
    // Account names make the log readable; without them (a lookup error) IDs do.
    const [page, names] = await Promise.all([
      api.listAuditEvents({ ...current, limit: LIMIT, offset }),
      hasScope(SCOPE_ACCOUNTS)
        ? api.listAccounts({ limit: 500, offset: 0 }).then(
            (l) => new Map(l.data.map((a) => [a.id, a.name])),
            () => new Map<string, string>(),
          )
        : new Map<string, string>(),
    ]);
    if (page.data.length === 0) {
      replace(list, notice('info', Object.values(current).some(Boolean) ? 'No events match these filters.' : 'No admin actions recorded yet.'));
      return;
    }
    replace(
      list,
      h(
        'table',
        { class: 'table audit', 'data-testid': 'audit-events' },
        h('thead', null, h('tr', null, h('th', null, 'Time'), h('th', null, 'Actor'), h('th', null, 'Action'), h('th', null, 'Target'), h('th', null, 'Account'), h('th', null, 'Request ID'), h('th', null, 'Details'))),
        h('tbody', null, page.data.map((e) => row(e, current, names))),
      ),
      pager(page.pagination, LIMIT, (o) => navigate(withQuery('/admin/audit', { ...current, offset: o }))),
    );
  } catch (err) {
    replace(list, errorBox(err));
  }
}

function filterLink(current: Record<string, string>, name: string, value: string, text: string, cls = ''): HTMLElement {
  return link(withQuery('/admin/audit', { ...current, [name]: value }), { class: cls, title: `Show only ${name} = ${value}` }, text);
}

/** short shows the start of a UUID; the whole one is in the tooltip and the link. */
function short(id: string): string {
  return id.length > 13 ? id.slice(0, 8) + '…' : id;
}

function row(e: AuditEvent, current: Record<string, string>, names: Map<string, string>): HTMLElement {
  const details = e.details && typeof e.details === 'object' && Object.keys(e.details).length
    ? h('details', null, h('summary', null, 'Show'), h('pre', null, JSON.stringify(e.details, null, 2)))
    : h('span', { class: 'muted' }, '—');
  const label = `${e.target_type} ${short(e.target_id)}`;
  const attrs = { class: 'mono small', title: `${e.target_type} ${e.target_id}` };
  let target: HTMLElement;
  if (e.target_type === 'account') target = link(`/admin/accounts/${encodeURIComponent(e.target_id)}`, attrs, label);
  else if (e.target_type === 'booking') target = link(`/admin/bookings/${encodeURIComponent(e.target_id)}`, attrs, label);
  else target = filterLink(current, 'target_id', e.target_id, label, 'mono small');
  return h(
    'tr',
    { 'data-action': e.action },
    h('td', { class: 'nowrap' }, fmtTime(e.at)),
    h('td', { class: 'nowrap' }, filterLink(current, 'actor', e.actor, e.actor || '—')),
    h('td', null, filterLink(current, 'action', e.action, e.action, 'chip')),
    h('td', null, target),
    h('td', null, e.account_id ? filterLink(current, 'account_id', e.account_id, names.get(e.account_id) ?? short(e.account_id), names.has(e.account_id) ? '' : 'mono small') : '—'),
    h('td', { class: 'mono small break' }, e.request_id),
    h('td', null, details),
  );
}
