/**
 * The package graph, held at the source: every folder of `src/` belongs to exactly one package of
 * packages/layout.js, an import between two packages goes only to a package the importer's manifest depends on
 * and that the layout places before it, and the agent package (`durable-ask-user`) imports nothing of the worker,
 * answering, MCP or CLI side, nor any of their heavy dependencies. The build checks the compiled output the same
 * way (scripts/assemble-packages.js); this test fails first, without a build.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, test } from 'node:test';

import { PACKAGES } from '../../packages/layout';
import { folderOf, importEdges, packageImports, SRC, type ImportEdge } from '../helpers/import-graph';

import type { PackageLayout } from '../../packages/layout';

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const AGENT = 'durable-ask-user';

/** What an agent that only asks must never install: the worker's native core, Slack, the servers, MCP. */
const HEAVY = [
  '@temporalio/worker',
  '@temporalio/core-bridge',
  '@temporalio/activity',
  '@slack/',
  'hono',
  '@hono/',
  'openid-client',
  '@modelcontextprotocol/',
];

function manifestOf(layout: PackageLayout): Manifest {
  const file = path.resolve(__dirname, '..', '..', 'packages', layout.directory, 'package.json');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
}

function packageOf(file: string): PackageLayout | undefined {
  return PACKAGES.find((layout) => layout.folders.includes(folderOf(file)));
}

/**
 * The imports that break the package graph: into a folder no package holds, into a package the importer does
 * not depend on, or into one the layout places after the importer.
 */
export function packageGraphViolations(edges: readonly ImportEdge[]): string[] {
  const order = PACKAGES.map((layout) => layout.name);
  const violations: string[] = [];
  for (const edge of edges) {
    const from = packageOf(edge.from);
    const to = packageOf(edge.to);
    if (from === undefined || to === undefined) {
      violations.push(`${edge.from} -> ${edge.to}: a folder that no package of packages/layout.js holds`);
      continue;
    }
    if (from.name === to.name) continue;
    const dependencies = manifestOf(from).dependencies ?? {};
    if (!(to.name in dependencies) || order.indexOf(to.name) > order.indexOf(from.name)) {
      violations.push(`${edge.from} -> ${edge.to}: ${from.name} may not import ${to.name}`);
    }
  }
  return violations;
}

const edges = importEdges();

describe('the package graph', () => {
  test('every folder of src/ belongs to exactly one package', () => {
    const folders = new Set(edges.flatMap((edge) => [folderOf(edge.from), folderOf(edge.to)]));
    for (const entry of fs.readdirSync(SRC, { withFileTypes: true })) {
      if (entry.isDirectory()) folders.add(entry.name);
    }
    const owners = (folder: string): string[] =>
      PACKAGES.filter((layout) => layout.folders.includes(folder)).map((layout) => layout.name);
    assert.deepEqual(
      [...folders].sort().filter((folder) => owners(folder).length !== 1),
      [],
      'folders held by no package, or by several',
    );
  });

  test('an import between packages goes only to a dependency placed before the importer', () => {
    const across = edges.filter((edge) => packageOf(edge.from)?.name !== packageOf(edge.to)?.name);
    console.log(`package graph: ${edges.length} imports, ${across.length} between packages`);
    assert.deepEqual(packageGraphViolations(edges), []);
  });

  test('the agent package depends on no sibling and imports nothing of another package', () => {
    const agent = PACKAGES.find((layout) => layout.name === AGENT)!;
    const siblings = PACKAGES.map((layout) => layout.name);
    assert.deepEqual(
      Object.keys(manifestOf(agent).dependencies ?? {}).filter((name) => siblings.includes(name)),
      [],
    );
    assert.deepEqual(
      edges
        .filter((edge) => packageOf(edge.from)?.name === AGENT && packageOf(edge.to)?.name !== AGENT)
        .map((edge) => `${edge.from} -> ${edge.to}`),
      [],
    );
  });

  test("the agent package's sources import none of the worker's, the servers' or MCP's dependencies", () => {
    const heavy = packageImports().filter(
      ({ from, specifier }) =>
        packageOf(from)?.name === AGENT &&
        HEAVY.some((name) => (name.endsWith('/') ? specifier.startsWith(name) : specifier === name)),
    );
    assert.deepEqual(
      heavy.map(({ from, specifier }) => `${from} -> ${specifier}`),
      [],
    );
  });

  // A type-only import is gone from the compiled JavaScript; one that reaches a package's declarations is the
  // build's to refuse (scripts/assemble-packages.js reads the compiled .d.ts files).
  test("each package's sources import only packages its manifest lists (or Node's own)", () => {
    const builtins = new Set(builtinModules);
    const missing = packageImports().flatMap(({ from, specifier, typeOnly }) => {
      const owner = packageOf(from);
      if (owner === undefined || typeOnly || specifier.startsWith('node:')) return [];
      const parts = specifier.split('/');
      const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
      if (builtins.has(name) || name === owner.name) return [];
      const manifest = manifestOf(owner);
      const declared = { ...manifest.dependencies, ...manifest.peerDependencies };
      return name in declared ? [] : [`${from} -> ${specifier} (${owner.name} does not list ${name})`];
    });
    assert.deepEqual(missing, []);
  });

  test('docs/design.md ("Packages by role") names every package with exactly its folders', () => {
    const design = fs.readFileSync(path.resolve(__dirname, '..', '..', 'docs', 'design.md'), 'utf8');
    const start = design.indexOf('\n## Packages by role\n');
    assert.ok(start >= 0, 'docs/design.md has no "Packages by role" section');
    const section = design.slice(start, design.indexOf('\n## ', start + 1));
    const rows = new Map<string, string[]>();
    for (const line of section.split('\n')) {
      // | `name` | role | `folder`, `folder` | depends on | size |
      const cells = line.split('|').map((cell) => cell.trim());
      if (cells.length < 5 || !/^`[@\w/-]+`$/.test(cells[1] ?? '')) continue;
      rows.set(
        cells[1]!.slice(1, -1),
        [...cells[3]!.matchAll(/`([\w-]+)`/g)].map((match) => match[1]!),
      );
    }
    assert.deepEqual(
      [...rows].map(([name, folders]) => [name, [...folders].sort()]),
      PACKAGES.map((layout) => [layout.name, [...layout.folders].sort()]),
    );
  });

  test('the check has teeth: an import from the agent side into the worker side is a violation', () => {
    const planted: ImportEdge = {
      from: 'provider/temporal-user-interaction.ts',
      to: 'worker/worker.ts',
      specifier: '../worker/worker',
    };
    assert.deepEqual(packageGraphViolations([...edges, planted]), [
      'provider/temporal-user-interaction.ts -> worker/worker.ts: durable-ask-user may not import @durable-ask-user/worker',
    ]);
  });
});
