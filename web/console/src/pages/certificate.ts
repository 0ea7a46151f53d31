// An application's own client certificate: the employee pastes the partner's CSR
// (Skygate signs it where it holds the client CA's key) or a certificate the operator's
// CA signed, and the application is bound to the result (client_cert_sha256) at once.

import { api, type Application, type ApplicationCertificate } from '../api';
import { fmtTime, h, replace } from '../dom';
import { busy, copyButton, notice, showError } from '../ui';

/** pemKind says which field a pasted PEM block goes in: a certificate, or else a CSR. */
function pemKind(text: string): 'certificate' | 'csr' {
  return /-----BEGIN CERTIFICATE-----/.test(text) ? 'certificate' : 'csr';
}

/**
 * certificateForm asks for the PEM and sends it; done gets the answer once the
 * application is bound. close removes the form.
 */
export function certificateForm(app: Application, done: (cert: ApplicationCertificate, issued: boolean) => void, close: () => void): HTMLElement {
  const pem = h('textarea', {
    name: 'pem',
    rows: 8,
    class: 'mono',
    spellcheck: 'false',
    autocomplete: 'off',
    placeholder: '-----BEGIN CERTIFICATE REQUEST-----\n…\n-----END CERTIFICATE REQUEST-----',
  });
  const kind = h('p', { class: 'muted small', 'data-testid': 'pem-kind' }, 'Paste one PEM block.');
  pem.addEventListener('input', () => {
    kind.textContent = pem.value.trim() === '' ? 'Paste one PEM block.'
      : pemKind(pem.value) === 'certificate' ? 'A certificate: it is checked against the client CA and bound as it is.'
      : 'A certificate signing request: Skygate signs it with the client CA.';
  });
  const formError = h('div');
  const form = h(
    'form',
    { class: 'card form', 'data-testid': 'certificate-form' },
    h('h3', null, `Client certificate for ${app.name}`),
    h(
      'p',
      null,
      'Paste the partner’s certificate signing request (PKCS#10, PEM): Skygate signs it with the client CA where it holds the CA’s key (development, sandbox). ',
      'Where the key is kept elsewhere (production), sign the request with your CA and paste the certificate instead. ',
      'The partner keeps its private key; never ask for it.',
    ),
    app.client_cert_sha256
      ? notice('warning', 'This application is bound to a certificate already. The new one replaces it at once: booking calls with the old one fail from then on.')
      : null,
    h('label', null, 'CSR or certificate (PEM)', pem),
    kind,
    formError,
    h(
      'div',
      { class: 'actions' },
      h('button', { class: 'btn', type: 'button', onclick: close }, 'Cancel'),
      h('button', { class: 'btn btn-primary', type: 'submit' }, 'Issue and bind'),
    ),
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    showError(formError, null);
    const text = pem.value.trim() + '\n';
    const field = pemKind(text);
    try {
      const cert = await busy(form, () =>
        api.createCertificate(app.id, field === 'csr' ? { csr: text } : { certificate: text }),
      );
      done(cert, field === 'csr');
    } catch (err) {
      showError(formError, err);
    }
  });
  return form;
}

/**
 * certificatePanel shows the certificate and the binding, with copy and download. The
 * service keeps no copy of the certificate, so the panel says to store it.
 */
export function certificatePanel(cert: ApplicationCertificate, issued: boolean, onDone: () => void): HTMLElement {
  const app = cert.application;
  const pem = h('textarea', { readonly: true, rows: 10, class: 'mono', 'aria-label': 'Certificate (PEM)', 'data-testid': 'certificate-pem', spellcheck: 'false' });
  pem.value = cert.certificate;
  const url = URL.createObjectURL(new Blob([cert.certificate], { type: 'application/x-pem-file' }));
  const fact = (term: string, testid: string, ...value: (Node | string)[]) => [h('dt', null, term), h('dd', { 'data-testid': testid }, ...value)];
  const panel = h(
    'section',
    { class: 'cert-panel', 'aria-live': 'polite', 'data-testid': 'certificate-panel' },
    h('h3', null, issued ? `Certificate issued for ${app.name}` : `Certificate bound to ${app.name}`),
    h(
      'p',
      null,
      `${app.name} is now bound to this certificate: its booking calls need it, with the partner’s own private key, and any other certificate is refused. `,
      'Skygate keeps only its thumbprint: copy or download the certificate and give it to the partner.',
    ),
    h(
      'dl',
      { class: 'facts' },
      fact('SHA-256', 'certificate-sha256', h('code', { class: 'break' }, cert.sha256)),
      fact('Valid until', 'certificate-not-after', fmtTime(cert.not_after), ' ', h('code', { class: 'muted small' }, cert.not_after)),
      fact('Subject', 'certificate-subject', h('code', null, cert.subject)),
      fact('Issuer', 'certificate-issuer', h('code', null, cert.issuer)),
      fact('Serial', 'certificate-serial', h('code', { class: 'break' }, cert.serial)),
      fact('Binding (x5t#S256)', 'certificate-binding', h('code', { class: 'break' }, app.client_cert_sha256 ?? '')),
    ),
    h('label', null, 'Certificate (PEM)', pem),
    h(
      'div',
      { class: 'actions' },
      copyButton(pem, 'Copy certificate'),
      h('a', { class: 'btn', href: url, download: `${app.client_id}.pem`, 'data-testid': 'certificate-download' }, 'Download .pem'),
      h('button', {
        class: 'btn btn-primary',
        type: 'button',
        onclick: () => {
          URL.revokeObjectURL(url);
          panel.remove();
          onDone();
        },
      }, 'Done'),
    ),
  );
  return panel;
}

/** openCertificate fills slot with the form, then with the answer; bound runs once the application is bound. */
export function openCertificate(slot: HTMLElement, app: Application, bound: () => void): void {
  const close = () => replace(slot);
  replace(
    slot,
    certificateForm(app, (cert, issued) => {
      replace(slot, certificatePanel(cert, issued, close));
      bound();
    }, close),
  );
  slot.scrollIntoView({ block: 'nearest' });
}
