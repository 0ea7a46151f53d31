// Renders the OpenAPI document named by data-spec-url with Swagger UI, offline: no
// validator badge, no external fetches. The page's own origin is put first in the
// document's server list, so "Try it out" talks to the server that served the page
// (the only origin the Content-Security-Policy lets it reach).
(function () {
  'use strict';
  var el = document.getElementById('swagger-ui');
  var url = el.getAttribute('data-spec-url');
  var options = {
    domNode: el,
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    persistAuthorization: false,
  };
  fetch(url, { headers: { Accept: 'application/json' } })
    .then(function (r) {
      if (!r.ok) throw new Error('HTTP ' + r.status);
      return r.json();
    })
    .then(function (spec) {
      var here = window.location.origin;
      var others = (spec.servers || []).filter(function (s) { return s.url !== here; });
      spec.servers = [{ url: here, description: 'this server' }].concat(others);
      // The document's example dates are fixed; "Try it out" gets a week from today,
      // which every seed fast-track's booking_before_hours allows.
      var week = new Date(Date.now() + 7 * 86400000).toISOString().slice(0, 10);
      (function walk(v) {
        if (!v || typeof v !== 'object') return;
        if (v.example && typeof v.example === 'object' && 'service_date' in v.example) v.example.service_date = week;
        Object.keys(v).forEach(function (k) { walk(v[k]); });
      })(spec);
      options.spec = spec;
      window.ui = SwaggerUIBundle(options);
    })
    .catch(function () {
      options.url = url; // let Swagger UI fetch it and show its own error
      window.ui = SwaggerUIBundle(options);
    });
})();
