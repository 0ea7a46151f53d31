// Accounts: the list (oldest first, paged), creating one, suspending and reactivating.

import { api, SCOPE_ACCOUNTS, type Account } from '../api';
import { fmtTime, h, replace } from '../dom';
import { intParam, link, navigate, withQuery, type Route } from '../router';
import { busy, confirmAction, errorBox, lacksScope, loading, notice, pager, showError, statusBadge } from '../ui';

const LIMIT = 25;

/** setStatus suspends or reactivates an account after asking; it returns the new account or null. */
export async function setStatus(a: Account): Promise<Account | null> {
  const suspend = a.status === 'active';
  const ok = await confirmAction(
    suspend
      ? {
          title: `Suspend ${a.name}?`,
          body: 'Every token of its applications stops working at once, and it gets no new tokens until it is reactivated.',
          confirm: 'Suspend account',
          danger: true,
        }
      : { title: `Reactivate ${a.name}?`, body: 'Its applications can get tokens again.', confirm: 'Reactivate account' },
  );
  if (!ok) return null;
  return api.setAccountStatus(a.id, suspend ? 'suspended' : 'active');
}

export async function accountsPage({ view, query }: Route): Promise<void> {
  document.title = 'Accounts · Skygate console';
  const missing = lacksScope(SCOPE_ACCOUNTS, 'Managing accounts');
  if (missing) {
    replace(view, h('div', { class: 'page-head' }, h('h1', null, 'Accounts')), missing, openByIdForm());
    return;
  }
  const offset = intParam(query, 'offset');
  const messages = h('div', { class: 'messages' });
  const list = h('div', null, loading());

  const nameInput = h('input', { type: 'text', name: 'name', required: true, maxlength: 128, placeholder: 'Partner name, e.g. Acme Travel', 'aria-label': 'Account name' });
  const formError = h('div');
  const form = h(
    'form',
    { class: 'inline-form card', 'data-testid': 'create-account' },
    h('h2', null, 'New account'),
    h('div', { class: 'row' }, nameInput, h('button', { class: 'btn btn-primary', type: 'submit' }, 'Create account')),
    formError,
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    showError(formError, null);
    try {
      const a = await busy(form, () => api.createAccount(nameInput.value.trim()));
      navigate(`/admin/accounts/${encodeURIComponent(a.id)}?created=1`);
    } catch (err) {
      showError(formError, err);
    }
  });

  replace(view, h('div', { class: 'page-head' }, h('h1', null, 'Accounts')), messages, form, list);

  const load = async () => {
    try {
      const page = await api.listAccounts({ limit: LIMIT, offset });
      if (page.data.length === 0) {
        replace(list, notice('info', offset ? 'No accounts on this page.' : 'No accounts yet. Create the first one above.'));
        return;
      }
      const rows = page.data.map((a) => {
        const btn = h(
          'button',
          { class: a.status === 'active' ? 'btn btn-small btn-danger-outline' : 'btn btn-small', type: 'button' },
          a.status === 'active' ? 'Suspend' : 'Reactivate',
        );
        btn.addEventListener('click', async () => {
          try {
            const updated = await setStatus(a);
            if (updated) {
              replace(messages, notice('success', `${updated.name} is now ${updated.status}.`));
              await load();
            }
          } catch (err) {
            replace(messages, errorBox(err));
          }
        });
        return h(
          'tr',
          { 'data-account-id': a.id },
          h('td', null, link(`/admin/accounts/${encodeURIComponent(a.id)}`, null, a.name)),
          h('td', null, statusBadge(a.status)),
          h('td', { class: 'mono small' }, a.id),
          h('td', null, fmtTime(a.created_at)),
          h('td', { class: 'actions' }, btn),
        );
      });
      replace(
        list,
        h(
          'table',
          { class: 'table' },
          h('thead', null, h('tr', null, h('th', null, 'Name'), h('th', null, 'Status'), h('th', null, 'ID'), h('th', null, 'Created'), h('th', null, ''))),
          h('tbody', null, rows),
        ),
        pager(page.pagination, LIMIT, (o) => navigate(withQuery('/admin/accounts', { offset: o }))),
      );
    } catch (err) {
      replace(list, errorBox(err));
    }
  };
  await load();
}

/** openByIdForm opens an account page by its ID (for roles that may not list accounts). */
function openByIdForm(): HTMLElement {
  const input = h('input', { type: 'text', class: 'mono', required: true, placeholder: 'Account ID (UUID)', 'aria-label': 'Account ID' });
  const form = h('form', { class: 'row card' }, input, h('button', { class: 'btn', type: 'submit' }, 'Open account'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    navigate(`/admin/accounts/${encodeURIComponent(input.value.trim())}`);
  });
  return form;
}
