/** The version of graphql at node_modules/graphql, e.g. "16.15.0" (see graphql-major.mjs). */
export declare function activeGraphqlVersion(): string;
/** Makes `major` (16 or 17) the graphql at node_modules/graphql; returns its version. */
export declare function useGraphqlMajor(major: 16 | 17): string;
/** graphql 17's directory while 16 is active, installed first when missing. */
export declare function installGraphql17(): string;
