/**
 * Imported first by the runner, before anything loads graphql-js. graphql-js decides once, as
 * it loads, whether `NODE_ENV` is "production"; when it is not, every type check that answers
 * "no" (is this nullable type a non-null type? is this leaf an object type?) also inspects the
 * value to warn about duplicate copies of graphql-js. Servers run in production mode, every
 * engine here leans on those checks, and the extra work would blur the comparison. An explicit
 * NODE_ENV is respected, and the header of the report states which mode was measured.
 */
process.env.NODE_ENV ??= 'production';
