// The admin API client: every call carries the employee's bearer token, and every
// error body (RFC 9457 problem+json, or an RFC 6749 error from the token endpoint)
// becomes an ApiError the pages can show.

import { currentToken, expireSession } from './auth';
import { ApiError, errorFrom } from './errors';

export { ApiError };

export interface Pagination {
  count: number;
  offset: number;
  total: number;
}

export interface List<T> {
  data: T[];
  pagination: Pagination;
}

export interface Account {
  id: string;
  name: string;
  status: 'active' | 'suspended';
  created_at: string;
  updated_at: string;
}

export interface Application {
  id: string;
  account_id: string;
  name: string;
  client_id: string;
  allowed_scopes: string[];
  sandbox: boolean;
  client_cert_sha256?: string;
  created_at: string;
  updated_at: string;
  // When the secret the last rotation replaced stops (or stopped) working; absent when
  // that rotation had no grace period.
  previous_secret_expires_at?: string;
}

export interface ApplicationWithSecret extends Application {
  client_secret: string;
}

/** ApplicationCertificate is a client certificate issued or bound for an application. */
export interface ApplicationCertificate {
  certificate: string;
  sha256: string;
  client_cert_sha256: string;
  serial: string;
  subject: string;
  issuer: string;
  not_before: string;
  not_after: string;
  application: Application;
}

export interface AuditEvent {
  id: string;
  actor: string;
  action: string;
  target_type: string;
  target_id: string;
  account_id?: string;
  request_id: string;
  at: string;
  details?: unknown;
}

export type BookingStatus = 'Pending' | 'Issued' | 'Confirmed' | 'Completed' | 'Expired' | 'Canceled';

export interface Passenger {
  first_name: string;
  last_name: string;
  date_of_birth?: string;
  passport_number?: string;
  nationality?: string;
  email?: string;
  phone?: string;
}

export interface Booking {
  id: string;
  account_id: string;
  account_name: string;
  fast_track_name: string;
  status: BookingStatus;
  fast_track_id: string;
  service_date: string;
  flight: { number?: string; direction: 'departure' | 'arrival' };
  passengers: Passenger[];
  partner_reference: string;
  confirm_before: string | null;
  created_at: string;
  updated_at: string;
  status_history: { status: BookingStatus; at: string }[];
}

/** Money is an amount in minor units (cents, tiyin) of an ISO 4217 currency. */
export interface Money {
  amount: number;
  currency: string;
}

export const LANGUAGES = ['en', 'ru', 'uz', 'kk'] as const;
export type Language = (typeof LANGUAGES)[number];

/** APN is the access point a package's eSIMs need; username and password may be empty. */
export interface APN {
  name: string;
  username?: string;
  password?: string;
}

/**
 * ESIMPackage is the admin form of a package, with its name in every language. apn is
 * null when the network sets the access point; refund_window_days left out is 30.
 */
export interface ESIMPackage {
  id?: string;
  name: Record<Language, string>;
  countries: string[];
  data_mb: number | null;
  validity_days: number;
  price: Money;
  top_up: boolean;
  active: boolean;
  apn?: APN | null;
  refund_window_days?: number;
  created_at?: string;
  updated_at?: string;
}

export interface ESIMCatalog {
  account_id: string;
  version: number;
  updated_at: string;
  packages: ESIMPackage[] | null;
}

export interface PoolCounts {
  total: number;
  by_status: Record<string, number>;
}

export interface LedgerEntry {
  id: string;
  kind: 'charge' | 'credit' | 'refund' | 'reservation' | 'release';
  amount: Money;
  balance_after: number;
  booking_id: string | null;
  reference: string;
  description: string;
  created_at: string;
}

// Balance is the account's money in one currency: amount is available, reserved is
// held by live priced bookings.
export interface Balance extends Money {
  reserved: number;
}

export interface Billing {
  balances: Balance[];
  ledger: List<LedgerEntry>;
}

export type ESIMStatus = 'Assigned' | 'Installed' | 'Active' | 'Depleted' | 'Expired';
export const ESIM_STATUSES: ESIMStatus[] = ['Assigned', 'Installed', 'Active', 'Depleted', 'Expired'];

/** ESIM is an eSIM as employees read it: never its activation code. */
export interface ESIM {
  iccid: string;
  status: ESIMStatus;
  order_id: string;
  package_id: string;
  package: { name: string } | null;
  usage: { total_mb?: number | null; used_mb: number; remaining_mb?: number | null };
  validity_days: number;
  installed_at: string | null;
  activated_at: string | null;
  expires_at: string | null;
  created_at: string;
}

export interface ESIMOrder {
  id: string;
  status: string;
  package_id: string;
  quantity: number;
  partner_reference: string;
  unit_price: Money;
  total: Money;
  esims: ESIM[];
  created_at: string;
}

export interface WebhookSubscription {
  id: string;
  url: string;
  active: boolean;
  /** The event types it receives; empty means every type. */
  event_types: string[];
  /** When and why Skygate last disabled it; null while it is active. */
  disabled_at: string | null;
  disabled_reason: 'failing' | 'gone' | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDelivery {
  id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempt_count: number;
  next_attempt_at: string | null;
  last_status_code: number;
  last_error: string;
  created_at: string;
  updated_at: string;
}

/** FastTrackPrice is an account's price of one fast-track per passenger type, in minor units. */
export interface FastTrackPrice {
  fast_track_id: string;
  currency: string;
  adult: number;
  child: number;
  infant: number;
}

/** PriceInput is an item of a price list as sent: child and infant default to adult when absent. */
export interface PriceInput {
  fast_track_id: string;
  currency: string;
  adult: number;
  child?: number;
  infant?: number;
}

/** PriceList is an account's whole fast-track price list; updated_at is null when it never had one. */
export interface PriceList {
  data: FastTrackPrice[];
  updated_at: string | null;
}

/** AdminFastTrack is a fast-track of the catalog as employees list it, with its capacity per slot. */
export interface AdminFastTrack {
  id: string;
  name: string;
  hub: string;
  terminal: string;
  capacity_per_slot: number;
  catalog_capacity_per_slot: number;
  overridden: boolean;
}

/** FastTrackCapacity is a fast-track's capacity per one-hour slot: an admin's when overridden. */
export interface FastTrackCapacity {
  fast_track_id: string;
  capacity_per_slot: number;
  catalog_capacity_per_slot: number;
  overridden: boolean;
}

/** The admin scopes of employee tokens (SPEC.md §5.2). */
export const SCOPE_ACCOUNTS = 'identity.account:*';
export const SCOPE_APPLICATIONS = 'identity.application:*';

/** B2B_SCOPES are the scopes an application may be allowed (OpenAPI B2BScope). */
export const B2B_SCOPES: { scope: string; label: string }[] = [
  { scope: 'catalog.lounges:read', label: 'Catalog: lounges' },
  { scope: 'catalog.fasttrack:read', label: 'Catalog: fast-tracks' },
  { scope: 'catalog.esim:read', label: 'Catalog: eSIM packages' },
  { scope: 'booking.fasttrack:read', label: 'Fast-track bookings: read' },
  { scope: 'booking.fasttrack:write', label: 'Fast-track bookings: write' },
  { scope: 'esim:read', label: 'eSIM: read' },
  { scope: 'esim:write', label: 'eSIM: write' },
  { scope: 'webhooks:read', label: 'Webhooks: read' },
  { scope: 'webhooks:write', label: 'Webhooks: write' },
  { scope: 'events:read', label: 'Events: read' },
  { scope: 'oauth.introspect', label: 'OAuth: introspect tokens' },
];

export const BOOKING_STATUSES: BookingStatus[] = ['Pending', 'Issued', 'Confirmed', 'Completed', 'Expired', 'Canceled'];

const ADMIN = '/api/v1/admin';

type Query = Record<string, string | number | undefined>;

function withQuery(path: string, q?: Query): string {
  if (!q) return path;
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v !== undefined && v !== '') p.set(k, String(v));
  }
  const s = p.toString();
  return s ? `${path}?${s}` : path;
}

/** RawBody is a request body sent as it is, with its media type (a CSV upload). */
export class RawBody {
  constructor(
    readonly text: string,
    readonly contentType: string,
  ) {}
}

async function call<T>(method: string, path: string, body?: unknown, q?: Query): Promise<T> {
  const token = currentToken();
  if (!token) {
    expireSession('Please sign in.');
    throw new ApiError(401, 'Not signed in', 'Please sign in.', 'Unauthorized');
  }
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
  let payload: string | undefined;
  if (body instanceof RawBody) {
    headers['Content-Type'] = body.contentType;
    payload = body.text;
  } else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const resp = await fetch(withQuery(ADMIN + path, q), { method, headers, body: payload, cache: 'no-store' });
  if (!resp.ok) {
    const err = await errorFrom(resp);
    if (resp.status === 401) expireSession(err.detail || 'Your session has ended. Please sign in again.');
    throw err;
  }
  if (resp.status === 204) return undefined as T;
  return (await resp.json()) as T;
}

const enc = encodeURIComponent;

export const api = {
  listAccounts: (q: { limit: number; offset: number }) => call<List<Account>>('GET', '/accounts', undefined, q),
  getAccount: (id: string) => call<Account>('GET', `/accounts/${enc(id)}`),
  createAccount: (name: string) => call<Account>('POST', '/accounts', { name }),
  setAccountStatus: (id: string, status: Account['status']) =>
    call<Account>('PATCH', `/accounts/${enc(id)}`, { status }),

  listApplications: (accountID: string, q: { limit: number; offset: number }) =>
    call<List<Application>>('GET', `/accounts/${enc(accountID)}/applications`, undefined, q),
  createApplication: (
    accountID: string,
    req: { name: string; allowed_scopes: string[]; sandbox: boolean; client_cert_sha256?: string },
  ) => call<ApplicationWithSecret>('POST', `/accounts/${enc(accountID)}/applications`, req),
  // graceSeconds: how long the old secret keeps working (0: at once). revokeTokens:
  // every token the application issued so far stops working too (then the grace
  // period must be 0).
  rotateSecret: (id: string, req: { grace_seconds: number; revoke_tokens?: boolean }) =>
    call<ApplicationWithSecret>('POST', `/applications/${enc(id)}/rotate-secret`, req),
  deleteApplication: (id: string) => call<void>('DELETE', `/applications/${enc(id)}`),
  // csr: the service signs it (where it holds the client CA's key); certificate: one
  // the client CA signed elsewhere. Either way the application is bound to the result.
  createCertificate: (id: string, req: { csr: string } | { certificate: string }) =>
    call<ApplicationCertificate>('POST', `/applications/${enc(id)}/certificates`, req),

  // The list route is GET /api/v1/admin/accounts/{accountID}/bookings?status&limit&offset.
  listBookings: (accountID: string, q: { status?: string; limit: number; offset: number }) =>
    call<List<Booking>>('GET', `/accounts/${enc(accountID)}/bookings`, undefined, q),
  getBooking: (id: string) => call<Booking>('GET', `/bookings/${enc(id)}`),
  completeBooking: (id: string) => call<Booking>('POST', `/bookings/${enc(id)}/complete`),

  // eSIM of one account: packages, pool, credits and what came of them.
  esimPackages: (accountID: string) => call<ESIMCatalog>('GET', `/accounts/${enc(accountID)}/esim/packages`),
  setESIMPackages: (accountID: string, pkgs: ESIMPackage[]) => call<ESIMCatalog>('POST', `/accounts/${enc(accountID)}/esim/packages`, pkgs),
  poolCounts: (accountID: string) => call<PoolCounts>('GET', `/accounts/${enc(accountID)}/esim/pool`),
  // body: a JSON array of {iccid, smdp_address, matching_id}, or CSV with that header.
  importPool: (accountID: string, body: RawBody) =>
    call<{ imported: number; pool: PoolCounts }>('POST', `/accounts/${enc(accountID)}/esim/pool`, body),
  credit: (accountID: string, req: { amount: Money; kind: 'credit' | 'refund'; reference: string; description: string }) =>
    call<LedgerEntry>('POST', `/accounts/${enc(accountID)}/esim/credits`, req),
  esimBilling: (accountID: string, q: { limit: number; offset: number }) =>
    call<Billing>('GET', `/accounts/${enc(accountID)}/esim/billing`, undefined, q),
  esimOrders: (accountID: string, q: { limit: number; offset: number }) =>
    call<List<ESIMOrder>>('GET', `/accounts/${enc(accountID)}/esim/orders`, undefined, q),
  esims: (accountID: string, q: { status?: string; order_id?: string; limit: number; offset: number }) =>
    call<List<ESIM>>('GET', `/accounts/${enc(accountID)}/esims`, undefined, q),

  // The account's webhook subscription (zero or one) and its delivery log.
  webhooks: (accountID: string) => call<List<WebhookSubscription>>('GET', `/accounts/${enc(accountID)}/webhooks`),
  webhookDeliveries: (accountID: string, webhookID: string, q: { limit: number; offset: number }) =>
    call<List<WebhookDelivery>>('GET', `/accounts/${enc(accountID)}/webhooks/${enc(webhookID)}/deliveries`, undefined, q),

  // Fast-track commerce: every fast-track of the catalog (one whole list), an account's
  // price list (PUT replaces it whole; [] removes it) and the airport's capacities
  // (PUT overrides the catalog's, DELETE resets to it).
  fastTracks: () => call<{ data: AdminFastTrack[] }>('GET', '/fast-tracks'),
  fastTrackPrices: (accountID: string) => call<PriceList>('GET', `/accounts/${enc(accountID)}/fast-track-prices`),
  setFastTrackPrices: (accountID: string, items: PriceInput[]) =>
    call<PriceList>('PUT', `/accounts/${enc(accountID)}/fast-track-prices`, items),
  setFastTrackCapacity: (fastTrackID: string, capacity: number) =>
    call<FastTrackCapacity>('PUT', `/fast-tracks/${enc(fastTrackID)}/capacity`, { capacity_per_slot: capacity }),
  resetFastTrackCapacity: (fastTrackID: string) => call<FastTrackCapacity>('DELETE', `/fast-tracks/${enc(fastTrackID)}/capacity`),

  listAuditEvents: (q: {
    actor?: string;
    action?: string;
    account_id?: string;
    target_id?: string;
    limit: number;
    offset: number;
  }) => call<List<AuditEvent>>('GET', '/audit-events', undefined, q),
};
