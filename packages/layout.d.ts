/** Types of packages/layout.js, for the tests and scripts written in TypeScript. */
export interface PackageLayout {
  /** The folder under packages/ holding its manifest and README. */
  directory: string;
  /** The npm package name. */
  name: string;
  /** What the package is for, in a line. */
  role: string;
  /** The folders of `src/` it holds (`entry` is the top of `src/`, `types` is src/types/). */
  folders: string[];
}

export const PACKAGES: readonly PackageLayout[];

export function packageOfFolder(folder: string): PackageLayout | undefined;
