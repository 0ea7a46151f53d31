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
    // `npm run dev` proxies the API to a local `skygate serve`.
    proxy: {
      '/api': process.env.SKYGATE_URL ?? 'http://127.0.0.1:8080',
      '/oauth': process.env.SKYGATE_URL ?? 'http://127.0.0.1:8080',
    },
  },
});
