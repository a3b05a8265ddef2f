/**
 * The import graph of `src/`: every relative import of every module (static imports and re-exports, type-only
 * ones included, `require()` and `import()`), resolved to files, and the folder each file belongs to. What the
 * import-arrow test checks against the table in `docs/design.md`, and the package-graph test against
 * packages/layout.js.
 */
import fs from 'node:fs';
import path from 'node:path';
import { moduleSpecifiers } from '../../scripts/module-specifiers';

export const SRC = path.resolve(__dirname, '..', '..', 'src');

/** One import of one module. */
export interface ImportEdge {
  /** Importing file, relative to `src/`. */
  from: string;
  /** Imported file, relative to `src/` (outside `src/` it starts with `../`). */
  to: string;
  /** The specifier as written. */
  specifier: string;
}

function sourceFiles(directory = SRC): string[] {
  const files: string[] = [];
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(full));
    else if (/\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(full);
  }
  return files.sort();
}

/** Every module specifier of `file`, with whether it is a type-only import or export (`import type ...`). */
function importsOf(file: string): { specifier: string; typeOnly: boolean }[] {
  return moduleSpecifiers(file, fs.readFileSync(file, 'utf8')).map(({ text, typeOnly }) => ({
    specifier: text,
    typeOnly,
  }));
}

function specifiersOf(file: string): string[] {
  return importsOf(file).map(({ specifier }) => specifier);
}

function resolveFile(fromFile: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(fromFile), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.js`, path.join(base, 'index.ts')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** Every relative import in `src/`. A specifier that resolves to no file is reported as its own path. */
export function importEdges(): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles()) {
    for (const specifier of specifiersOf(file)) {
      if (!specifier.startsWith('.')) continue;
      const target = resolveFile(file, specifier) ?? path.resolve(path.dirname(file), specifier);
      edges.push({
        from: path.relative(SRC, file).split(path.sep).join('/'),
        to: path.relative(SRC, target).split(path.sep).join('/'),
        specifier,
      });
    }
  }
  return edges;
}

/** One import of a package (not a relative path) by a file of `src/`. */
export interface PackageImport {
  /** Importing file, relative to `src/`. */
  from: string;
  specifier: string;
  /** `import type` / `export type`: gone from the compiled JavaScript. */
  typeOnly: boolean;
}

/** Every import of a package in `src/`. */
export function packageImports(): PackageImport[] {
  return sourceFiles().flatMap((file) =>
    importsOf(file)
      .filter(({ specifier }) => !specifier.startsWith('.'))
      .map((found) => ({ from: path.relative(SRC, file).split(path.sep).join('/'), ...found })),
  );
}

/**
 * The folder a file of `src/` belongs to: its first directory (`types` for the shared types), `entry` for the
 * package's entry points at the top of `src/`, and `outside` for anything outside `src/`.
 */
export function folderOf(file: string): string {
  if (file.startsWith('../')) return 'outside';
  const [first, ...rest] = file.split('/');
  if (rest.length > 0) return first!;
  return 'entry';
}

/** The cycles of the file graph: its strongly connected components of more than one file, or a self-import. */
export function fileCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (next.get(node) ?? []).includes(node)) cycles.push(component.sort());
    }
  };
  for (const node of next.keys()) if (!index.has(node)) connect(node);
  return cycles;
}
