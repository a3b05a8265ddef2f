/**
 * The house's layout, held: every import between two folders of `src/` must be an arrow of the table in
 * `docs/design.md` ("Folders and allowed imports"), every arrow of the table must be used, the table has no
 * loop, and no file imports itself through a cycle. Type-only imports count: they are arrows a reader follows.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import { fileCycles, folderOf, importEdges, type ImportEdge } from '../helpers/import-graph';

const DESIGN = path.resolve(__dirname, '..', '..', 'docs', 'design.md');
const SECTION = '## Folders and allowed imports';

/** The table's arrows: folder -> the folders it may import. */
function allowedArrows(): Map<string, Set<string>> {
  const text = fs.readFileSync(DESIGN, 'utf8');
  const start = text.indexOf(SECTION);
  assert.ok(start >= 0, `docs/design.md has no "${SECTION}" section`);
  const end = text.indexOf('\n## ', start + SECTION.length);
  const section = text.slice(start, end < 0 ? undefined : end);
  const arrows = new Map<string, Set<string>>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    // | `folder` | what it holds | `a`, `b` |
    if (cells.length < 5 || !/^`[\w-]+`$/.test(cells[1] ?? '')) continue;
    const folder = cells[1]!.slice(1, -1);
    const targets = [...(cells[3] ?? '').matchAll(/`([\w-]+)`/g)].map((match) => match[1]!);
    arrows.set(folder, new Set(targets));
  }
  assert.ok(arrows.size > 0, 'the table of allowed imports is empty');
  return arrows;
}

const edges = importEdges();

function crossFolder(all: readonly ImportEdge[]): ImportEdge[] {
  return all.filter((edge) => folderOf(edge.from) !== folderOf(edge.to));
}

describe('imports between folders', () => {
  test('every import between two folders is an arrow of the table in docs/design.md', () => {
    const allowed = allowedArrows();
    const outside = crossFolder(edges).filter(
      (edge) => !(allowed.get(folderOf(edge.from))?.has(folderOf(edge.to)) ?? false),
    );
    assert.deepEqual(
      outside.map((edge) => `${edge.from} -> ${edge.to} (${folderOf(edge.from)} -> ${folderOf(edge.to)})`),
      [],
    );
  });

  test('every folder of src/ has a row, and every arrow of the table is used', () => {
    const allowed = allowedArrows();
    const folders = new Set(edges.flatMap((edge) => [folderOf(edge.from), folderOf(edge.to)]));
    folders.delete('outside');
    assert.deepEqual([...folders].filter((folder) => !allowed.has(folder)).sort(), []);
    const used = new Set(crossFolder(edges).map((edge) => `${folderOf(edge.from)} -> ${folderOf(edge.to)}`));
    const unused = [...allowed].flatMap(([from, targets]) =>
      [...targets].map((to) => `${from} -> ${to}`).filter((arrow) => !used.has(arrow)),
    );
    assert.deepEqual(unused, [], 'arrows in the table that no import uses: remove them');
  });

  test('the table has no loop between folders', () => {
    const allowed = allowedArrows();
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (folder: string, trail: string[]): void => {
      if (state.get(folder) === 'done') return;
      assert.notEqual(state.get(folder), 'visiting', `loop: ${[...trail, folder].join(' -> ')}`);
      state.set(folder, 'visiting');
      for (const target of allowed.get(folder) ?? []) visit(target, [...trail, folder]);
      state.set(folder, 'done');
    };
    for (const folder of allowed.keys()) visit(folder, []);
  });

  test('no import cycle between files, and nothing in src/ imports from outside it', () => {
    const cycles = fileCycles(edges);
    console.log(`import graph: ${edges.length} imports, ${cycles.length} cycles`);
    assert.deepEqual(cycles, []);
    assert.deepEqual(
      edges.filter((edge) => folderOf(edge.to) === 'outside').map((edge) => `${edge.from} -> ${edge.to}`),
      [],
    );
  });
});
