// Fast-tracks: every fast-track of the catalog with its capacity per one-hour slot,
// which is the airport's and shared by every account. An employee sets a capacity over
// the catalog record's (PUT, audited) or resets it to the catalog's (DELETE, audited);
// each row says whether it is overridden.

import { api, ApiError, SCOPE_ACCOUNTS, type AdminFastTrack, type FastTrackCapacity } from '../api';
import { h, replace } from '../dom';
import { link, type Route } from '../router';
import { badge, busy, errorBox, fieldProblem, lacksScope, loading, notice } from '../ui';

/** MAX_CAPACITY is the largest capacity per slot the API takes (pricing.MaxCapacity). */
const MAX_CAPACITY = 10000;

export async function fastTracksPage({ view }: Route): Promise<void> {
  document.title = 'Fast-tracks · Skygate console';
  const head = h('div', { class: 'page-head' }, h('div', null, h('h1', null, 'Fast-tracks'),
    h('p', { class: 'muted small' }, 'Capacity per one-hour slot, shared by every account: a booking takes one place per adult or child passenger. ',
      'Prices are per account, on the account’s page (', link('/admin/accounts', null, 'Accounts'), ').')));
  const missing = lacksScope(SCOPE_ACCOUNTS, 'Setting capacities');
  if (missing) {
    replace(view, head, missing);
    return;
  }
  replace(view, head, loading());
  let list: AdminFastTrack[];
  try {
    list = (await api.fastTracks()).data;
  } catch (err) {
    replace(view, head, errorBox(err));
    return;
  }
  const messages = h('div', { 'aria-live': 'polite' });
  replace(
    view,
    head,
    messages,
    list.length === 0
      ? notice('info', 'The catalog has no fast-tracks.')
      : h(
          'table',
          { class: 'table capacity-table', 'data-testid': 'capacities' },
          h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Hub'), h('th', { scope: 'col' }, 'Fast-track'),
            h('th', { scope: 'col' }, 'Capacity per slot'), h('th', { scope: 'col' }, 'Catalog’s'), h('th', { scope: 'col' }, 'Source'))),
          h('tbody', null, list.map((ft) => capacityRow(ft, messages))),
        ),
  );
}

/** capacityRow shows one fast-track's capacity with its editor. */
function capacityRow(ft: AdminFastTrack, messages: HTMLElement): HTMLElement {
  const input = h('input', {
    type: 'number', name: 'capacity_per_slot', min: 0, max: MAX_CAPACITY, step: 1, required: true,
    value: ft.capacity_per_slot, 'aria-label': `Capacity per slot of ${ft.name} (${ft.hub})`,
  });
  const problem = fieldProblem(input);
  const save = h('button', { class: 'btn btn-small', type: 'button' }, 'Save');
  const reset = h('button', { class: 'btn btn-small', type: 'button', title: 'Remove the override: the catalog’s capacity applies again' }, 'Reset to catalog');
  const catalog = h('td', null, String(ft.catalog_capacity_per_slot));
  const source = h('td', { 'data-testid': 'capacity-source' });
  const show = (c: Pick<FastTrackCapacity, 'capacity_per_slot' | 'catalog_capacity_per_slot' | 'overridden'>) => {
    input.value = String(c.capacity_per_slot);
    catalog.textContent = String(c.catalog_capacity_per_slot);
    replace(source, c.overridden ? badge('overridden', 'info') : badge('catalog', 'muted'));
    reset.hidden = !c.overridden;
  };
  show(ft);
  const edit = h('div', { class: 'capacity-edit' }, input, save, reset);
  const row = h('tr', { 'data-fast-track-id': ft.id },
    h('td', null, h('code', null, ft.hub)),
    h('th', { scope: 'row' }, ft.name, h('div', { class: 'muted small' }, `terminal ${ft.terminal}`)),
    h('td', null, edit, problem.slot),
    catalog,
    source,
  );
  const submit = async () => {
    problem.clear();
    replace(messages);
    const text = input.value.trim();
    const n = Number(text);
    if (text === '' || !Number.isInteger(n)) {
      problem.set(`must be a whole number of places, 0 to ${MAX_CAPACITY}`);
      return;
    }
    try {
      const c = await busy(row, () => api.setFastTrackCapacity(ft.id, n));
      show(c);
      replace(messages, notice('success', `${ft.name} (${ft.hub}): ${c.capacity_per_slot} places per slot.`));
    } catch (err) {
      const own = err instanceof ApiError ? err.fields.filter((f) => f.field === 'capacity_per_slot') : [];
      if (own.length) own.forEach((f) => problem.set(f.message));
      else replace(messages, errorBox(err));
    }
  };
  const resetToCatalog = async () => {
    problem.clear();
    replace(messages);
    try {
      const c = await busy(row, () => api.resetFastTrackCapacity(ft.id));
      show(c);
      replace(messages, notice('success', `${ft.name} (${ft.hub}): back to the catalog’s ${c.capacity_per_slot} places per slot.`));
    } catch (err) {
      replace(messages, errorBox(err));
    }
  };
  save.addEventListener('click', () => void submit());
  reset.addEventListener('click', () => void resetToCatalog());
  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') {
      ev.preventDefault();
      void submit();
    }
  });
  return row;
}
