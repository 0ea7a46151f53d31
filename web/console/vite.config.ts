import { defineConfig } from 'vite';

// The console is served by the Go binary under /admin/ (package web embeds ../dist).
// No source maps and no inline scripts: the Content-Security-Policy allows 'self' only.
export default defineConfig({
  base: '/admin/',
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  server: {
    // `npm run dev`: the console with hot reload, everything else proxied to a local
    // `skygate serve` started with SKYGATE_PUBLIC_URL=http://localhost:5173 (see README.md).
    port: 5173,
    strictPort: true,
    proxy: Object.fromEntries(
      ['/api', '/oauth', '/dev', '/docs', '/openapi.json', '/.well-known'].map((p) => [p, 'http://127.0.0.1:8080']),
    ),
  },
});
