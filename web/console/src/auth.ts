// Employee sign-in: OAuth 2.0 authorization code with PKCE (RFC 7636, S256) against
// the service's own login routes (SPEC.md §5.2). The verifier and the state live in
// sessionStorage only between the redirect and the callback; the access token lives in
// sessionStorage for the tab's lifetime (or until it expires) and never in a cookie or
// in localStorage.

import { ApiError, errorFrom } from './errors';

const SESSION_KEY = 'skygate.console.session';
const PKCE_KEY = 'skygate.console.pkce';

export const LOGIN_PATH = '/api/v1/auth/idp/login';
export const TOKEN_PATH = '/oauth/v2/token';
export const CALLBACK_PATH = '/admin/callback';

export interface Session {
  token: string;
  expiresAt: number; // ms since the epoch
  scope: string;
  sub: string;
  name: string;
  roles: string[];
}

interface PendingLogin {
  verifier: string;
  state: string;
  returnTo: string;
  redirectUri: string;
}

/** SignInError is a sign-in that did not end with a token, with a message for people. */
export class SignInError extends Error {
  constructor(
    message: string,
    readonly code = '',
  ) {
    super(message);
  }
}

let signedOut: (message: string) => void = () => {};

/** onSignedOut registers what to do when the session ends (401, expiry, sign-out). */
export function onSignedOut(f: (message: string) => void): void {
  signedOut = f;
}

export function redirectUri(): string {
  return location.origin + CALLBACK_PATH;
}

function base64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** randomString is n random bytes, base64url: 64 bytes make an 86-character verifier. */
export function randomString(n: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(n)));
}

/** challengeFor is the S256 code challenge of a verifier. */
export async function challengeFor(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** signIn starts a login and leaves the page for the identity provider. */
export async function signIn(returnTo: string): Promise<void> {
  if (!window.isSecureContext || !crypto.subtle) {
    throw new SignInError('Signing in needs a secure context: open the console over HTTPS (or on localhost).');
  }
  const pending: PendingLogin = {
    verifier: randomString(64),
    state: randomString(32),
    returnTo,
    redirectUri: redirectUri(),
  };
  sessionStorage.setItem(PKCE_KEY, JSON.stringify(pending));
  const u = new URL(LOGIN_PATH, location.origin);
  u.searchParams.set('redirect_uri', pending.redirectUri);
  u.searchParams.set('code_challenge', await challengeFor(pending.verifier));
  u.searchParams.set('code_challenge_method', 'S256');
  u.searchParams.set('state', pending.state);
  location.assign(u.toString());
}

const NO_ACCESS =
  'Your company account has no access to the Skygate console. Ask for an admin role and sign in again.';

/**
 * completeSignIn handles /admin/callback: it checks the state, exchanges the code and
 * the verifier for a token, stores the session and returns where the employee was.
 */
export async function completeSignIn(params: URLSearchParams): Promise<string> {
  const raw = sessionStorage.getItem(PKCE_KEY);
  sessionStorage.removeItem(PKCE_KEY); // one attempt per login
  const pending = raw ? (JSON.parse(raw) as PendingLogin) : null;

  const error = params.get('error');
  if (error) {
    if (error === 'access_denied') throw new SignInError(NO_ACCESS, error);
    const desc = params.get('error_description');
    throw new SignInError(`Sign-in failed (${error})${desc ? ': ' + desc : '.'}`, error);
  }
  const code = params.get('code');
  if (!pending || !code || params.get('state') !== pending.state) {
    throw new SignInError('This sign-in response does not match a sign-in started in this tab. Please sign in again.');
  }

  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    code_verifier: pending.verifier,
    redirect_uri: pending.redirectUri,
  });
  let resp: Response;
  try {
    resp = await fetch(TOKEN_PATH, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body,
      cache: 'no-store',
    });
  } catch {
    throw new SignInError('The server could not be reached to finish signing in.');
  }
  if (!resp.ok) {
    const err: ApiError = await errorFrom(resp);
    if (err.code === 'access_denied') throw new SignInError(NO_ACCESS, err.code);
    throw new SignInError(`Sign-in failed (${err.title})${err.detail ? ': ' + err.detail : '.'}`, err.code);
  }
  const tok = (await resp.json()) as { access_token: string; expires_in: number; scope: string };
  const claims = decodeClaims(tok.access_token);
  const session: Session = {
    token: tok.access_token,
    expiresAt: Date.now() + tok.expires_in * 1000,
    scope: tok.scope ?? '',
    sub: String(claims.sub ?? ''),
    name: String(claims.name ?? claims.email ?? ''),
    roles: Array.isArray(claims.roles) ? claims.roles.map(String) : [],
  };
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  return safeReturn(pending.returnTo);
}

/** safeReturn keeps the post-login destination inside the console. */
function safeReturn(p: string): string {
  return p.startsWith('/admin/') && !p.startsWith(CALLBACK_PATH) && !p.startsWith('//') ? p : '/admin/accounts';
}

/** decodeClaims reads a JWT's payload for display; the server verifies the token, not us. */
export function decodeClaims(jwt: string): Record<string, unknown> {
  try {
    const part = jwt.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const json = decodeURIComponent(
      Array.from(atob(part), (c) => '%' + c.charCodeAt(0).toString(16).padStart(2, '0')).join(''),
    );
    return JSON.parse(json) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** session is the stored session when it has not expired. */
export function session(): Session | null {
  const raw = sessionStorage.getItem(SESSION_KEY);
  if (!raw) return null;
  try {
    const s = JSON.parse(raw) as Session;
    if (s.token && s.expiresAt > Date.now() + 5000) return s;
  } catch {
    // A damaged entry is no session.
  }
  sessionStorage.removeItem(SESSION_KEY);
  return null;
}

export function currentToken(): string | null {
  return session()?.token ?? null;
}

export function hasScope(scope: string): boolean {
  return (session()?.scope ?? '').split(' ').includes(scope);
}

/** expireSession forgets the token and tells the app, with a message for the sign-in page. */
export function expireSession(message: string): void {
  sessionStorage.removeItem(SESSION_KEY);
  signedOut(message);
}

export function signOut(): void {
  expireSession('You signed out.');
}
