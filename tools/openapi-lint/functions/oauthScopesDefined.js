// oauthScopesDefined checks one security requirement ({scheme: [scopes]}): every
// scheme it names is defined, and every scope it asks of an oauth2 scheme is one of
// that scheme's flows' scopes. The values of other schemes (the
// employee's http bearer scheme) are role names, which OpenAPI 3.1 allows without
// defining them; spectral:oas's oas3-operation-security-defined treats them as
// undefined OAuth scopes.
export default function oauthScopesDefined(requirement, _options, context) {
  const schemes = context.document.data?.components?.securitySchemes ?? {};
  const results = [];
  for (const [name, scopes] of Object.entries(requirement ?? {})) {
    const scheme = schemes[name];
    if (scheme === undefined) {
      results.push({ message: `security scheme "${name}" is not defined`, path: [...context.path, name] });
      continue;
    }
    if (scheme.type !== 'oauth2') {
      continue;
    }
    const defined = new Set(Object.values(scheme.flows ?? {}).flatMap((flow) => Object.keys(flow?.scopes ?? {})));
    (scopes ?? []).forEach((scope, i) => {
      if (!defined.has(scope)) {
        results.push({ message: `scope "${scope}" is not a scope of "${name}"`, path: [...context.path, name, i] });
      }
    });
  }
  return results;
}
