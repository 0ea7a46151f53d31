// An account's fast-track price list, on the account's page: one row per fast-track of
// the catalog with the account's currency and its adult, child and infant prices
// (typed in major units; an empty adult price leaves the fast-track unpriced, an empty
// child or infant price is the adult's). Save replaces the whole list (PUT); each
// problem of a refused list is shown next to its field.

import { api, ApiError, type Account, type AdminFastTrack, type FastTrackPrice, type PriceInput, type PriceList } from '../api';
import { fmtTime, h, replace } from '../dom';
import { fractionDigits, majorUnits, minorUnits } from '../money';
import { busy, errorBox, fieldProblem, loading, notice, problemSummary, type FieldProblem } from '../ui';

const AMOUNTS = ['adult', 'child', 'infant'] as const;
type AmountField = (typeof AMOUNTS)[number];
type Field = 'currency' | AmountField;

const AMOUNT_LABELS: Record<AmountField, string> = { adult: 'Adult', child: 'Child', infant: 'Infant' };

/** PriceRow is the inputs of one fast-track and the slots of their problems. */
interface PriceRow {
  ft: AdminFastTrack;
  inputs: Record<Field, HTMLInputElement>;
  problems: Record<Field, FieldProblem>;
  rowProblem: HTMLElement; // problems of the fast-track itself
}

/**
 * priceSection is the "Fast-track prices" section of an account's page; load fills it
 * from the catalog's fast-tracks and the account's list.
 */
export function priceSection(account: Account): { element: HTMLElement; load: () => Promise<void> } {
  const element = h('section', { 'data-testid': 'fast-track-prices', 'aria-labelledby': 'prices-title' },
    h('h2', { id: 'prices-title' }, 'Fast-track prices'), loading());
  const load = async () => {
    try {
      const [fts, list] = await Promise.all([api.fastTracks(), api.fastTrackPrices(account.id)]);
      replace(element, h('h2', { id: 'prices-title' }, 'Fast-track prices'), priceForm(account, fts.data, list));
    } catch (err) {
      replace(element, h('h2', { id: 'prices-title' }, 'Fast-track prices'), errorBox(err));
    }
  };
  return { element, load };
}

/** updatedLine says when the list last changed and how much of the catalog it prices. */
function updatedLine(list: PriceList, catalogSize: number): HTMLElement {
  return h(
    'p',
    { class: 'muted small', 'data-testid': 'prices-updated' },
    list.updated_at
      ? ['Updated ', fmtTime(list.updated_at), ` · ${list.data.length} of ${catalogSize} fast-tracks priced.`]
      : 'Never set: the account books fast-tracks without prices and without the prepaid balance.',
  );
}

function priceForm(account: Account, fastTracks: AdminFastTrack[], initial: PriceList): HTMLElement {
  // Prices of fast-tracks that left the catalog stay listed, so that saving can drop them.
  const known = new Set(fastTracks.map((ft) => ft.id));
  const gone = initial.data
    .filter((p) => !known.has(p.fast_track_id))
    .map((p): AdminFastTrack => ({
      id: p.fast_track_id, name: 'Not in the current catalog', hub: '—', terminal: '—',
      capacity_per_slot: 0, catalog_capacity_per_slot: 0, overridden: false,
    }));
  const rows = [...fastTracks, ...gone].map(priceRow);
  const messages = h('div', { 'aria-live': 'polite' });
  const updated = h('div');
  const fill = (list: PriceList) => {
    const by = new Map(list.data.map((p) => [p.fast_track_id, p]));
    for (const r of rows) setRow(r, by.get(r.ft.id));
    replace(updated, updatedLine(list, fastTracks.length));
  };
  fill(initial);

  const form = h(
    'form',
    { class: 'card form', 'data-testid': 'price-form', novalidate: true },
    updated,
    h('p', { class: 'muted small' },
      'Amounts in the currency’s units (35.00). An empty adult price leaves the fast-track unpriced: the account cannot book it once it has any price. ',
      'An empty child or infant price is the adult’s. Save replaces the whole list.'),
    h(
      'table',
      { class: 'table price-table' },
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Fast-track'), h('th', { scope: 'col' }, 'Currency'),
        AMOUNTS.map((f) => h('th', { scope: 'col' }, AMOUNT_LABELS[f])))),
      h('tbody', null, rows.map((r) =>
        h('tr', { 'data-fast-track-id': r.ft.id },
          h('th', { scope: 'row' }, r.ft.name, h('div', { class: 'muted small' }, `${r.ft.hub} · terminal ${r.ft.terminal}`), r.rowProblem),
          h('td', null, r.inputs.currency, r.problems.currency.slot),
          AMOUNTS.map((f) => h('td', null, r.inputs[f], r.problems[f].slot)),
        ))),
    ),
    messages,
    h('div', { class: 'actions' }, h('button', { class: 'btn btn-primary', type: 'submit' }, 'Save prices')),
  );

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    replace(messages);
    for (const r of rows) clearRow(r);
    const { items, sent, local } = readRows(rows);
    if (local > 0) {
      replace(messages, notice('warning', `${local === 1 ? 'One amount is' : `${local} amounts are`} not an amount of the currency; see next to ${local === 1 ? 'it' : 'them'}. Nothing was saved.`));
      return;
    }
    try {
      const list = await busy(form, () => api.setFastTrackPrices(account.id, items));
      fill(list);
      replace(messages, notice('success', items.length === 0
        ? 'Price list removed: the account books without prices.'
        : `Prices saved: ${list.data.length} ${list.data.length === 1 ? 'fast-track' : 'fast-tracks'} priced.`));
    } catch (err) {
      replace(messages, refused(err, sent));
    }
  });
  return form;
}

function priceRow(ft: AdminFastTrack): PriceRow {
  const input = (field: Field, attrs: Record<string, string | number>) =>
    h('input', { type: 'text', name: `${field}`, 'aria-label': `${field === 'currency' ? 'Currency' : `${AMOUNT_LABELS[field]} price`} of ${ft.name} (${ft.hub})`, autocomplete: 'off', spellcheck: 'false', ...attrs });
  const inputs: Record<Field, HTMLInputElement> = {
    currency: input('currency', { class: 'mono currency', maxlength: 3, placeholder: 'USD' }),
    adult: input('adult', { inputmode: 'decimal', placeholder: 'not priced' }),
    child: input('child', { inputmode: 'decimal', placeholder: '= adult' }),
    infant: input('infant', { inputmode: 'decimal', placeholder: '= adult' }),
  };
  const problems = {
    currency: fieldProblem(inputs.currency),
    adult: fieldProblem(inputs.adult),
    child: fieldProblem(inputs.child),
    infant: fieldProblem(inputs.infant),
  };
  return { ft, inputs, problems, rowProblem: h('div', { class: 'field-problem' }) };
}

function setRow(r: PriceRow, p: FastTrackPrice | undefined): void {
  r.inputs.currency.value = p?.currency ?? '';
  for (const f of AMOUNTS) r.inputs[f].value = p ? majorUnits({ amount: p[f], currency: p.currency }) : '';
}

function clearRow(r: PriceRow): void {
  for (const p of Object.values(r.problems)) p.clear();
  r.rowProblem.textContent = '';
}

/**
 * readRows turns the rows with any amount into the list to send, sent[i] being the row
 * of its item i; amounts that are not amounts of the row's currency are marked where
 * they are (local counts them). The currency goes as typed: the server judges it.
 */
function readRows(rows: PriceRow[]): { items: PriceInput[]; sent: PriceRow[]; local: number } {
  const items: PriceInput[] = [];
  const sent: PriceRow[] = [];
  let local = 0;
  for (const r of rows) {
    const text = Object.fromEntries(AMOUNTS.map((f) => [f, r.inputs[f].value.trim()])) as Record<AmountField, string>;
    if (!AMOUNTS.some((f) => text[f] !== '')) continue;
    const currency = r.inputs.currency.value.trim();
    const amounts: Partial<Record<AmountField, number>> = {};
    for (const f of AMOUNTS) {
      if (text[f] === '') continue;
      const n = minorUnits(text[f], currency || 'USD');
      if (n === null) {
        r.problems[f].set(`must be an amount such as 35.00, with at most ${fractionDigits(currency || 'USD')} decimals`);
        local++;
        continue;
      }
      amounts[f] = n;
    }
    items.push({
      fast_track_id: r.ft.id,
      currency,
      adult: amounts.adult ?? 0, // the server names a missing adult price
      ...(amounts.child !== undefined ? { child: amounts.child } : {}),
      ...(amounts.infant !== undefined ? { infant: amounts.infant } : {}),
    });
    sent.push(r);
  }
  return { items, sent, local };
}

/**
 * refused shows a refused save: each field error ("[3].currency") next to its field in
 * the row it came from, the rest in the summary.
 */
function refused(err: unknown, sent: PriceRow[]): HTMLElement {
  if (!(err instanceof ApiError) || err.fields.length === 0) return errorBox(err);
  const others: { field: string; message: string }[] = [];
  for (const f of err.fields) {
    const m = /^\[(\d+)\](?:\.(\w+))?$/.exec(f.field);
    const row = m ? sent[Number(m[1])] : undefined;
    const field = m?.[2];
    if (!row) {
      others.push(f);
    } else if (field === 'currency' || field === 'adult' || field === 'child' || field === 'infant') {
      row.problems[field].set(f.message);
    } else {
      row.rowProblem.textContent = `${row.rowProblem.textContent ?? ''} ${field ?? 'price'} ${f.message}`.trim();
    }
  }
  return problemSummary(err, others);
}
