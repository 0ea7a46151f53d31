// A tiny DOM builder. Text always goes in as text nodes, never as HTML, so nothing the
// API returns can inject markup; no inline styles, so the CSP can forbid them.

export type Child = Node | string | number | null | undefined | false | Child[];

type Attrs = {
  [name: string]: string | number | boolean | null | undefined | EventListener;
};

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2), value);
    } else if (name === 'style') {
      throw new Error('inline styles are not allowed by the CSP; use a class');
    } else if (value === true) {
      el.setAttribute(name, '');
    } else {
      el.setAttribute(name, String(value));
    }
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else if (c instanceof Node) parent.appendChild(c);
    else parent.appendChild(document.createTextNode(String(c)));
  }
}

/** replace empties el and fills it with children. */
export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** fmtTime shows an RFC 3339 time in the browser's locale, keeping the UTC value in a tooltip. */
export function fmtTime(s: string | null | undefined): HTMLElement | string {
  if (!s) return '—';
  const d = new Date(s);
  if (Number.isNaN(d.getTime())) return s;
  return h('time', { datetime: s, title: s }, d.toLocaleString());
}
