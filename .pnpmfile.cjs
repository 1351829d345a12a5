// pnpm hooks of the workspace.
//
// beforePacking: a package whose published `engines` differ from the
// workspace's says so in `publishConfig.engines`; packing (pnpm pack, pnpm
// publish) moves them into `engines`. @taskwire/ai-sdk is built and
// type-checked on every Node the workspace supports (its tests run on a
// Node 22 child, see vitest.config.ts), while the published package needs
// Node 22 at run time, as the AI SDK 7 does: the workspace install on
// Node 20 has nothing to warn about, an app that installs it on Node 20 is
// told.
module.exports = {
  hooks: {
    beforePacking(pkg) {
      const engines = pkg.publishConfig?.engines;
      if (engines === undefined) return pkg;
      const { engines: _, ...publishConfig } = pkg.publishConfig;
      return { ...pkg, engines, publishConfig };
    },
  },
};
