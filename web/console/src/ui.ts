// Shared pieces of the pages: error boxes, confirmations, paging, the one-time secret.

import type { Application, ApplicationWithSecret, Pagination } from './api';
import { ApiError } from './errors';
import { hasScope } from './auth';
import { h, replace, type Child } from './dom';

/** errorBox shows an error: the problem's title and detail, each field error, the request id. */
export function errorBox(err: unknown): HTMLElement {
  if (err instanceof ApiError) {
    return h(
      'div',
      { class: 'alert alert-error', role: 'alert' },
      h('strong', null, err.title),
      err.detail ? h('p', null, err.detail) : null,
      err.fields.length
        ? h('ul', { class: 'field-errors' }, err.fields.map((f) => h('li', null, h('code', null, f.field), ' ', f.message)))
        : null,
      err.requestId ? h('p', { class: 'muted small' }, 'Request ID: ', h('code', null, err.requestId)) : null,
    );
  }
  const msg = err instanceof Error ? err.message : String(err);
  return h('div', { class: 'alert alert-error', role: 'alert' }, h('strong', null, 'Something went wrong'), h('p', null, msg));
}

export function notice(kind: 'info' | 'success' | 'warning', ...children: Child[]): HTMLElement {
  return h('div', { class: `alert alert-${kind}`, role: 'status' }, ...children);
}

export function loading(what = 'Loading…'): HTMLElement {
  return h('p', { class: 'muted loading' }, what);
}

export function badge(text: string, kind: string): HTMLElement {
  return h('span', { class: `badge badge-${kind}` }, text);
}

export function statusBadge(status: string): HTMLElement {
  const kinds: Record<string, string> = {
    active: 'ok',
    suspended: 'bad',
    Confirmed: 'ok',
    Completed: 'ok',
    Issued: 'info',
    Pending: 'info',
    Expired: 'muted',
    Canceled: 'bad',
  };
  return badge(status, kinds[status] ?? 'muted');
}

/**
 * confirmAction asks before a consequential action, in a modal <dialog>; it resolves
 * true when confirmed.
 */
export function confirmAction(opts: { title: string; body: string; confirm: string; danger?: boolean; extra?: Node }): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = h(
      'dialog',
      { class: 'confirm', 'aria-labelledby': 'confirm-title' },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: 'confirm-title' }, opts.title),
        h('p', null, opts.body),
        opts.extra ?? null,
        h(
          'div',
          { class: 'actions' },
          h('button', { value: 'cancel', class: 'btn', type: 'submit' }, 'Cancel'),
          h('button', { value: 'ok', class: opts.danger ? 'btn btn-danger' : 'btn btn-primary', type: 'submit' }, opts.confirm),
        ),
      ),
    );
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'ok');
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/** pager shows "a–b of n" with previous and next buttons. */
export function pager(p: Pagination, limit: number, go: (offset: number) => void): HTMLElement {
  const from = p.total === 0 ? 0 : p.offset + 1;
  const to = p.offset + p.count;
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    h('span', { class: 'muted' }, p.total === 0 ? 'Nothing yet' : `${from}–${to} of ${p.total}`),
    h(
      'button',
      { class: 'btn btn-small', type: 'button', disabled: p.offset === 0, onclick: () => go(Math.max(0, p.offset - limit)) },
      '← Previous',
    ),
    h('button', { class: 'btn btn-small', type: 'button', disabled: to >= p.total, onclick: () => go(p.offset + limit) }, 'Next →'),
  );
}

/** copyButton copies the value of input to the clipboard. */
export function copyButton(input: HTMLInputElement | HTMLTextAreaElement, label = 'Copy'): HTMLButtonElement {
  const btn = h('button', { class: 'btn btn-small', type: 'button' }, label);
  btn.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      // No clipboard permission (or no secure context): select it for Ctrl+C instead.
      input.select();
      document.execCommand('copy');
    }
    btn.textContent = 'Copied';
    setTimeout(() => (btn.textContent = label), 2000);
  });
  return btn;
}

/**
 * secretPanel shows a client secret the server returns once. It stays until the
 * employee dismisses it; nothing keeps a copy (not the URL, not storage).
 */
export function secretPanel(app: ApplicationWithSecret, headline: string, onDone: () => void): HTMLElement {
  const idInput = h('input', { type: 'text', readonly: true, value: app.client_id, class: 'mono', 'aria-label': 'Client ID', 'data-testid': 'client-id' });
  const secretInput = h('input', {
    type: 'text',
    readonly: true,
    value: app.client_secret,
    class: 'mono',
    'aria-label': 'Client secret',
    'data-testid': 'client-secret',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const panel = h(
    'section',
    { class: 'secret-panel', 'aria-live': 'assertive', 'data-testid': 'secret-panel' },
    h('h3', null, headline),
    h(
      'p',
      { class: 'warning' },
      h('strong', null, 'Copy the client secret now. '),
      'It is shown only this once and cannot be retrieved later — Skygate stores only a hash. ',
      'If it is lost, rotate the secret to get a new one.',
    ),
    h('label', null, 'Client ID', h('div', { class: 'copy-row' }, idInput, copyButton(idInput))),
    h('label', null, 'Client secret', h('div', { class: 'copy-row' }, secretInput, copyButton(secretInput, 'Copy secret'))),
    h('div', { class: 'actions' }, h('button', { class: 'btn btn-primary', type: 'button', onclick: () => { panel.remove(); onDone(); } }, 'I have stored the secret')),
  );
  return panel;
}

/** scopeList shows scopes as small code chips. */
export function scopeList(app: Application): HTMLElement {
  return h('span', { class: 'scopes' }, app.allowed_scopes.map((s) => h('code', { class: 'chip' }, s)));
}

/** busy disables a form's controls while an action runs. */
export async function busy<T>(form: HTMLElement, f: () => Promise<T>): Promise<T> {
  const controls = Array.from(form.querySelectorAll<HTMLButtonElement | HTMLInputElement>('button, input, select'));
  const was = controls.map((c) => c.disabled);
  controls.forEach((c) => (c.disabled = true));
  try {
    return await f();
  } finally {
    controls.forEach((c, i) => (c.disabled = was[i]));
  }
}

/** showError puts an error box in slot (or clears it with null). */
export function showError(slot: HTMLElement, err: unknown | null): void {
  if (err === null) replace(slot);
  else replace(slot, errorBox(err));
}

/**
 * lacksScope returns a notice when the employee's token lacks scope (the page's
 * calls would all answer 403), or null when it has it.
 */
export function lacksScope(scope: string, what: string): HTMLElement | null {
  if (hasScope(scope)) return null;
  return notice('warning', h('strong', null, 'Not available to your role. '), `${what} needs the `, h('code', null, scope), ' scope, which your sign-in did not grant.');
}

let fieldErrorSeq = 0;

/** FieldProblem is the message slot of one input: set shows a problem next to it, clear removes it. */
export interface FieldProblem {
  slot: HTMLElement;
  set(message: string): void;
  clear(): void;
}

/**
 * fieldProblem makes the slot for problems of input, announced with it: the input is
 * marked aria-invalid and described by the message while one is shown.
 */
export function fieldProblem(input: HTMLInputElement): FieldProblem {
  const id = `field-problem-${++fieldErrorSeq}`;
  const slot = h('div', { class: 'field-problem', id, 'data-testid': 'field-problem' });
  return {
    slot,
    set(message: string) {
      slot.textContent = slot.textContent ? `${slot.textContent} ${message}` : message;
      input.setAttribute('aria-invalid', 'true');
      input.setAttribute('aria-describedby', id);
    },
    clear() {
      slot.textContent = '';
      input.removeAttribute('aria-invalid');
      input.removeAttribute('aria-describedby');
    },
  };
}

/**
 * problemSummary heads a refused form whose field errors are shown next to their
 * fields: the problem's title and detail, the errors no field took (others), and the
 * request id.
 */
export function problemSummary(err: ApiError, others: { field: string; message: string }[]): HTMLElement {
  return h(
    'div',
    { class: 'alert alert-error', role: 'alert' },
    h('strong', null, err.title),
    err.detail ? h('p', null, err.detail) : null,
    err.fields.length > others.length ? h('p', null, 'Each problem is shown next to its field in the table.') : null,
    others.length ? h('ul', { class: 'field-errors' }, others.map((f) => h('li', null, h('code', null, f.field || '(the list)'), ' ', f.message))) : null,
    err.requestId ? h('p', { class: 'muted small' }, 'Request ID: ', h('code', null, err.requestId)) : null,
  );
}
