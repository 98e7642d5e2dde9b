/** Compiles the conformance kit's fixtures into `<outDir>/fixtures` (default dist). */
export function buildFixtures(options?: { outDir?: string }): Promise<void>;
