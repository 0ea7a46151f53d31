// Package web serves the browser-facing parts of Skygate from files embedded in the
// binary, so that `go run` needs no Node: the employee console, a TypeScript SPA under
// /admin/ (ConsoleHandler), and the documentation under /docs (DocsHandler): Markdown
// pages from content/ (a Getting started guide, webhook events, problem types) and the
// partner and admin API references rendered by Swagger UI, fully offline.
//
// dist/ is build output, committed on purpose: web/console/build.sh regenerates it
// from web/console (Vite for the console, swagger-ui-dist for the docs). Edit the
// sources there, never dist/.
package web
