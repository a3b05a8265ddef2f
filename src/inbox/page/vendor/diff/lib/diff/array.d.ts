/**
 * The page imports the `diff` package's array diff by the URL the inbox serves it at (`/vendor/diff/lib/…`
 * mirrors the package's `diff/lib/…` export, see `page-assets.ts`); this tells the type checker that the
 * module at that URL is the package's own.
 */
export { diffArrays } from 'diff/lib/diff/array.js';
