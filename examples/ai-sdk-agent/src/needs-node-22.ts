// Imported first by main.ts: on a Node older than 22 (which the AI SDK 7
// needs), says so once in plain words and exits, before the AI SDK loads.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(
    `The AI SDK travel agent needs Node.js 22 or newer (the AI SDK 7 does); this is Node ${process.version}.\n` +
      'Run it with Node 22: `node scripts/node22.mjs` at the root of the repository prints the path of one (it installs it from npm when needed).\n',
  );
  process.exit(1);
}
export {};
