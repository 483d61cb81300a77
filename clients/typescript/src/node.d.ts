// The little of Node.js this check uses (no @types/node dependency for three names).
declare const process: {
  argv: string[];
  env: Record<string, string | undefined>;
  exitCode: number | undefined;
};
