// Bundles the extension and vscode-languageclient into out/extension.js.
// `node esbuild.js` (development build with source maps), `--production` (minified),
// `--watch` (rebuild on change), `--tests` (test/*.test.ts into out/test/, for `node --test`).
const esbuild = require('esbuild');

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const tests = process.argv.includes('--tests');

async function buildTests() {
    const fs = require('node:fs');
    const entryPoints = fs
        .readdirSync('test')
        .filter((name) => name.endsWith('.test.ts'))
        .map((name) => `test/${name}`);
    fs.rmSync('out/test', { recursive: true, force: true });
    // The tested modules do not import 'vscode': a test that pulls it in fails to build.
    await esbuild.build({
        entryPoints,
        bundle: true,
        format: 'cjs',
        platform: 'node',
        target: 'node18',
        outdir: 'out/test',
        logLevel: 'warning',
    });
}

async function main() {
    if (tests) {
        await buildTests();
        return;
    }
    const ctx = await esbuild.context({
        entryPoints: ['src/extension.ts'],
        bundle: true,
        format: 'cjs',
        platform: 'node',
        target: 'node18',
        outfile: 'out/extension.js',
        external: ['vscode'],
        minify: production,
        sourcemap: !production,
        sourcesContent: false,
        logLevel: 'info',
    });
    if (watch) {
        await ctx.watch();
    } else {
        await ctx.rebuild();
        await ctx.dispose();
    }
}

main().catch((error) => {
    console.error(error);
    process.exit(1);
});
