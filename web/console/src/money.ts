// Money in the console: the API speaks integer minor units of an ISO 4217 currency
// (cents, tiyin); employees type and read amounts in the currency's major units.

import type { Money } from './api';

/** fractionDigits is the number of minor-unit digits of an ISO 4217 currency (2 when unknown). */
export function fractionDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** fmtMoney shows minor units as an amount of the currency, e.g. 450 USD as "$4.50". */
export function fmtMoney(m: Money): string {
  const d = fractionDigits(m.currency);
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency: m.currency }).format(m.amount / 10 ** d);
  } catch {
    return `${m.amount} ${m.currency} (minor units)`;
  }
}

/** minorUnits reads "4.50" in currency as 450, or returns null when it is not an amount. */
export function minorUnits(text: string, currency: string): number | null {
  const t = text.trim();
  if (!/^\d+(\.\d+)?$/.test(t)) return null;
  const d = fractionDigits(currency);
  const [whole, frac = ''] = t.split('.');
  if (frac.length > d) return null;
  return Number(whole) * 10 ** d + Number(frac.padEnd(d, '0') || '0');
}

/** majorUnits shows minor units in the currency's major units, e.g. 450 USD as "4.50". */
export function majorUnits(m: Money): string {
  const d = fractionDigits(m.currency);
  return (m.amount / 10 ** d).toFixed(d);
}
