// Copies the files /docs needs into ../dist/docs: Swagger UI's bundle and stylesheet
// (without source-map references: no maps are shipped) with its licence, and the script
// and stylesheet that start it; package web renders the pages around them.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const swagger = join(root, 'node_modules', 'swagger-ui-dist');
const out = join(root, '..', 'dist', 'docs');

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const stripMaps = (s) => s.replace(/\n?\/[/*][#@] sourceMappingURL=[^\n]*\s*$/u, '\n');
for (const f of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
  writeFileSync(join(out, f), stripMaps(readFileSync(join(swagger, f), 'utf8')));
}
copyFileSync(join(swagger, 'LICENSE'), join(out, 'LICENSE.txt'));
writeFileSync(
  join(out, 'NOTICE.txt'),
  readFileSync(join(swagger, 'NOTICE'), 'utf8') +
    '\n\nswagger-ui-bundle.js bundles:\n\n' +
    readFileSync(join(swagger, 'swagger-ui-bundle.js.LICENSE.txt'), 'utf8'),
);
for (const f of ['docs.js', 'docs.css']) {
  copyFileSync(join(root, 'docs', f), join(out, f));
}
const version = JSON.parse(readFileSync(join(swagger, 'package.json'), 'utf8')).version;
console.log(`vendored swagger-ui-dist ${version} into ${out}`);
