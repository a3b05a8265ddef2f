/**
 * The inbox page's files: plain HTML, one script and one style sheet in `page/`, served as they are (no build
 * step). `npm run build` copies `src/inbox/page/` to `dist/inbox/page/`, so the compiled server finds them
 * beside itself as the source one does.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The page's three files, as text. */
export interface PageAssets {
  html: string;
  script: string;
  style: string;
}

/** Directory of the page's files, next to this module. */
export const PAGE_DIRECTORY = path.join(__dirname, 'page');

let cached: PageAssets | undefined;

/**
 * Reads the page's files once and keeps them.
 *
 * @throws Error naming the missing file, e.g. in a build that did not copy `page/`.
 */
export function pageAssets(): PageAssets {
  cached ??= {
    html: read('index.html'),
    script: read('inbox.js'),
    style: read('inbox.css'),
  };
  return cached;
}

function read(name: string): string {
  const file = path.join(PAGE_DIRECTORY, name);
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(
      `inbox page file ${file} is missing: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
