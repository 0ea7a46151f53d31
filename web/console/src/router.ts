// History-API routing under /admin/: the server answers every /admin/ path with
// index.html, so deep links and /admin/callback load the app.

import { h, type Child } from './dom';

export interface Route {
  view: HTMLElement; // a fresh element per navigation: late answers land nowhere
  params: Record<string, string>;
  query: URLSearchParams;
}

export type Page = (r: Route) => void | Promise<void>;

interface Entry {
  re: RegExp;
  names: string[];
  page: Page;
}

const entries: Entry[] = [];
let rerender: () => void = () => {};

/** route adds a page for a pattern such as /admin/accounts/:id. */
export function route(pattern: string, page: Page): void {
  const names: string[] = [];
  const re = new RegExp(
    '^' +
      pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, (_, n: string) => {
        names.push(n);
        return '([^/]+)';
      }) +
      '/?$',
  );
  entries.push({ re, names, page });
}

/** match finds the page of a path. */
export function match(path: string): { page: Page; params: Record<string, string> } | null {
  for (const e of entries) {
    const m = e.re.exec(path);
    if (m) {
      const params: Record<string, string> = {};
      e.names.forEach((n, i) => (params[n] = decodeURIComponent(m[i + 1])));
      return { page: e.page, params };
    }
  }
  return null;
}

export function onNavigate(f: () => void): void {
  rerender = f;
  window.addEventListener('popstate', () => rerender());
}

/** navigate moves to path inside the console and renders it. */
export function navigate(path: string, opts: { replace?: boolean } = {}): void {
  if (opts.replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  rerender();
  window.scrollTo(0, 0);
}

/** link is an <a> that navigates inside the console (and still opens in a new tab). */
export function link(href: string, attrs: Record<string, string> | null, ...children: Child[]): HTMLAnchorElement {
  const a = h('a', { ...(attrs ?? {}), href }, ...children);
  a.addEventListener('click', (ev) => {
    if (ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    ev.preventDefault();
    navigate(href);
  });
  return a;
}

/** withQuery is path with the non-empty values of q. */
export function withQuery(path: string, q: Record<string, string | number | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v !== undefined && v !== '' && v !== 0) p.set(k, String(v));
  }
  const s = p.toString();
  return s ? `${path}?${s}` : path;
}

/** intParam reads a non-negative integer query parameter. */
export function intParam(q: URLSearchParams, name: string): number {
  const n = Number.parseInt(q.get(name) ?? '', 10);
  return Number.isFinite(n) && n > 0 ? n : 0;
}
