// The Skygate employee console: sign-in, then accounts, applications, eSIM, webhooks,
// fast-track prices and capacities, bookings and the audit log of the admin API.

import './style.css';
import { CALLBACK_PATH, SignInError, completeSignIn, onSignedOut, session, signIn, signOut } from './auth';
import { h, replace } from './dom';
import { link, match, navigate, onNavigate, route } from './router';
import { errorBox, notice } from './ui';
import { accountsPage } from './pages/accounts';
import { accountPage } from './pages/account';
import { esimPage } from './pages/esim';
import { bookingPage, bookingsPage } from './pages/bookings';
import { auditPage } from './pages/audit';
import { fastTracksPage } from './pages/fasttracks';

const root = document.getElementById('app')!;

route('/admin/accounts', accountsPage);
route('/admin/accounts/:id', accountPage);
route('/admin/accounts/:id/esim', esimPage);
route('/admin/bookings', bookingsPage);
route('/admin/bookings/:id', bookingPage);
route('/admin/fast-tracks', fastTracksPage);
route('/admin/audit', auditPage);

function signInPage(message: string, error?: unknown): void {
  document.title = 'Sign in · Skygate console';
  const slot = h('div');
  const button = h('button', { class: 'btn btn-primary btn-large', type: 'button', 'data-testid': 'sign-in' }, 'Sign in with your company account');
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const here = location.pathname + location.search;
      await signIn(here === CALLBACK_PATH || here === '/admin/' ? '/admin/accounts' : here);
    } catch (err) {
      button.disabled = false;
      replace(slot, errorBox(err));
    }
  });
  if (error instanceof SignInError && error.code === 'access_denied') {
    replace(slot, notice('warning', h('strong', null, 'No access. '), error.message));
  } else if (error) {
    replace(slot, errorBox(error));
  } else if (message) {
    replace(slot, notice('info', message));
  }
  replace(
    root,
    h(
      'main',
      { class: 'signin' },
      h(
        'div',
        { class: 'card signin-card' },
        h('div', { class: 'brand brand-large' }, h('span', { class: 'logo', 'aria-hidden': 'true' }, '✈'), ' Skygate'),
        h('h1', null, 'Employee console'),
        h('p', { class: 'muted' }, 'Manage partner accounts, their applications and credentials, eSIM, bookings and the audit log.'),
        slot,
        button,
      ),
    ),
  );
}

async function callback(): Promise<void> {
  replace(root, h('main', { class: 'signin' }, h('div', { class: 'card signin-card' }, h('p', { class: 'loading' }, 'Signing you in…'))));
  const params = new URLSearchParams(location.search);
  // The code is single-use: take it out of the address bar and the history at once.
  history.replaceState(null, '', '/admin/');
  try {
    const returnTo = await completeSignIn(params);
    navigate(returnTo, { replace: true });
  } catch (err) {
    signInPage('', err);
  }
}

function shell(): HTMLElement {
  const s = session()!;
  const nav = h(
    'nav',
    { class: 'topnav', 'aria-label': 'Main' },
    link('/admin/accounts', { 'data-section': 'accounts' }, 'Accounts'),
    link('/admin/bookings', { 'data-section': 'bookings' }, 'Bookings'),
    link('/admin/fast-tracks', { 'data-section': 'fast-tracks' }, 'Fast-tracks'),
    link('/admin/audit', { 'data-section': 'audit' }, 'Audit log'),
    h('a', { href: '/docs', target: '_blank', rel: 'noopener' }, 'API docs ↗'),
  );
  const section = location.pathname.split('/')[2] ?? '';
  nav.querySelector(`[data-section="${section}"]`)?.setAttribute('aria-current', 'page');
  const minutes = Math.max(0, Math.round((s.expiresAt - Date.now()) / 60000));
  const view = h('main', { class: 'view', id: 'view' });
  replace(
    root,
    h(
      'header',
      { class: 'topbar' },
      h('div', { class: 'brand' }, h('span', { class: 'logo', 'aria-hidden': 'true' }, '✈'), ' Skygate console'),
      nav,
      h(
        'div',
        { class: 'who' },
        h('span', { class: 'who-name', title: `Session ends in about ${minutes} min` , 'data-testid': 'employee' }, s.name || s.sub),
        s.roles.length ? h('span', { class: 'muted small' }, ' · ' + s.roles.join(', ')) : null,
        h('button', { class: 'btn btn-small btn-ghost', type: 'button', onclick: () => signOut() }, 'Sign out'),
      ),
    ),
    view,
  );
  return view;
}

async function render(): Promise<void> {
  const path = location.pathname;
  if (path === CALLBACK_PATH) return callback();
  if (!session()) return signInPage('');
  if (path === '/admin' || path === '/admin/') return navigate('/admin/accounts', { replace: true });
  const view = shell();
  const m = match(path);
  if (!m) {
    document.title = 'Not found · Skygate console';
    replace(view, h('h1', null, 'Not found'), h('p', null, 'There is no console page at ', h('code', null, path), '. ', link('/admin/accounts', null, 'Go to accounts'), '.'));
    return;
  }
  try {
    await m.page({ view, params: m.params, query: new URLSearchParams(location.search) });
  } catch (err) {
    view.append(errorBox(err));
  }
}

onSignedOut((message) => signInPage(message));
onNavigate(() => void render());
void render();
