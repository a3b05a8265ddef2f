/**
 * The inbox page's files, served as they are (no build step): `page/` holds the HTML, the style sheet and the
 * page's ES modules, each served at its path in the folder (`/inbox.js`, `/queue.js`, ...). The page's line
 * diff comes from the `diff` package, whose ESM build is served under `/vendor/diff/lib/`, the URL mirroring the
 * package's own `diff/lib/*` export; it is found wherever Node resolves the package, so a source checkout and an
 * installed package serve the same files. `npm run build` copies the files of `page/` that are served to
 * `dist/inbox/page/`, so the compiled server finds them beside itself as the source one does.
 */
import fs from 'node:fs';
import path from 'node:path';

import { errorText } from '../common';

/** A file of the page, as the inbox serves it. */
export interface PageFile {
  body: string;
  contentType: string;
}

/** The page's files by the URL path each is served at; `/` is `index.html`. */
export type PageAssets = ReadonlyMap<string, PageFile>;

/** Directory of the page's files, next to this module. */
export const PAGE_DIRECTORY = path.join(__dirname, 'page');

/** The URL path of the `diff` package's `lib/` export. */
const DIFF_PATH = '/vendor/diff/lib/';

/**
 * What each served kind of file is sent as; other files of `page/` (its tsconfig.json, the type declarations of
 * the vendored modules) are for the type checker only.
 */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

let cached: PageAssets | undefined;

/**
 * Reads the page's files once and keeps them.
 *
 * @throws Error naming the missing folder, e.g. in a build that did not copy `page/`.
 */
export function pageAssets(): PageAssets {
  cached ??= new Map([...pageFiles(), ...diffFiles()]);
  return cached;
}

/** `page/`'s served files: index.html at `/`, the others at their path in the folder. */
function pageFiles(): [string, PageFile][] {
  return servedFiles(PAGE_DIRECTORY, 'inbox page').map(([relative, file]) => [
    relative === 'index.html' ? '/' : `/${relative}`,
    file,
  ]);
}

/**
 * The `diff` package's ESM build (`libesm/`, what its `lib/*` export resolves to for `import`), JavaScript only.
 */
function diffFiles(): [string, PageFile][] {
  const packageDirectory = path.dirname(require.resolve('diff/package.json'));
  return servedFiles(path.join(packageDirectory, 'libesm'), 'diff package ESM')
    .filter(([relative]) => relative.endsWith('.js'))
    .map(([relative, file]) => [`${DIFF_PATH}${relative}`, file]);
}

/** The files under `directory` of a served kind, by their path in it with `/` separators. */
function servedFiles(directory: string, what: string): [string, PageFile][] {
  let names: string[];
  try {
    names = fs.readdirSync(directory, { recursive: true, encoding: 'utf8' });
  } catch (error) {
    throw new Error(`${what} folder ${directory} is missing: ${errorText(error)}`, { cause: error });
  }
  return names.flatMap((name): [string, PageFile][] => {
    const contentType = CONTENT_TYPES[path.extname(name)];
    if (contentType === undefined) return [];
    const body = fs.readFileSync(path.join(directory, name), 'utf8');
    return [[name.split(path.sep).join('/'), { body, contentType }]];
  });
}
