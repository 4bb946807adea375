// The API reference at /docs: Swagger UI (swagger-ui-dist, served from the package) rendering the
// served /openapi.json. Offline: no validator badge (it would call an outside service), no
// external fonts or scripts. "Try it out" calls this origin with the key given under Authorize.
//
// The document declares `jsonSchemaDialect` JSON Schema 2020-12, which OpenAPI 3.1 allows but
// Swagger UI renders with a warning (it supports only the OAS base dialect, itself 2020-12 plus
// OpenAPI's keywords); the field is dropped from the copy shown here, nothing else is changed.
const render = (spec) =>
  window.SwaggerUIBundle({
    ...(spec ? { spec } : { url: '/openapi.json' }),
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    displayOperationId: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    presets: [window.SwaggerUIBundle.presets.apis],
  });

fetch('/openapi.json', { cache: 'no-store' })
  .then((response) => (response.ok ? response.json() : Promise.reject(new Error(`HTTP ${response.status}`))))
  .then((doc) => {
    if (doc.jsonSchemaDialect === 'https://json-schema.org/draft/2020-12/schema') delete doc.jsonSchemaDialect;
    window.ui = render(doc);
  })
  .catch(() => {
    window.ui = render();
  });
