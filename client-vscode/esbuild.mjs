// Bundles the extension (dist/extension.js) or, with --tests, the unit tests (out/test/*.test.js).
//
//   node esbuild.mjs               development bundle with a source map
//   node esbuild.mjs --production  minified bundle (what `vsce package` ships)
//   node esbuild.mjs --tests       unit-test bundles; src/vscodeapi.ts is swapped for
//                                  test/fakeVscodeapi.ts so the tests run in plain Node
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = dirname(fileURLToPath(import.meta.url));
const production = process.argv.includes('--production');
const tests = process.argv.includes('--tests');

const common = {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    logLevel: 'warning',
};

/** Resolve every import of src/vscodeapi to the fake used by the unit tests. */
const fakeVscodeApi = {
    name: 'fake-vscodeapi',
    setup(build) {
        build.onResolve({ filter: /(^|\/)vscodeapi$/ }, (args) => {
            const real = resolve(args.resolveDir, args.path);
            if (real !== join(root, 'src', 'vscodeapi')) {
                return undefined;
            }
            return { path: join(root, 'test', 'fakeVscodeapi.ts') };
        });
    },
};

if (tests) {
    const testDir = join(root, 'test');
    const entryPoints = readdirSync(testDir)
        .filter((name) => name.endsWith('.test.ts'))
        .map((name) => join(testDir, name));
    await esbuild.build({
        ...common,
        entryPoints,
        outdir: join(root, 'out', 'test'),
        sourcemap: 'inline',
        plugins: [fakeVscodeApi],
    });
} else {
    await esbuild.build({
        ...common,
        entryPoints: [join(root, 'src', 'extension.ts')],
        outfile: join(root, 'dist', 'extension.js'),
        minify: production,
        sourcemap: !production,
        sourcesContent: false,
    });
}
