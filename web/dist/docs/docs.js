// Renders the OpenAPI document named by data-spec-url with Swagger UI, offline: no
// validator badge, no external fetches; "Try it out" talks to this origin.
(function () {
  'use strict';
  var el = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: el.getAttribute('data-spec-url'),
    domNode: el,
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    tryItOutEnabled: false,
    persistAuthorization: false,
  });
})();
