/** The path of a `node` of this major, or null (see node-binary.mjs). */
export declare function nodeBinary(major: number): string | null;
