// The API reference at /docs: Swagger UI (swagger-ui-dist, served from the package) rendering the
// served /openapi.json. Offline: no validator badge (it would call an outside service), no
// external fonts or scripts. "Try it out" calls this origin with the key given under Authorize.
const render = () =>
  window.SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    displayOperationId: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    presets: [window.SwaggerUIBundle.presets.apis],
  });

window.ui = render();
