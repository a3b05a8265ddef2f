/**
 * The module specifiers of a TypeScript or JavaScript file, read with the TypeScript parser (comments and strings
 * that merely look like imports are not imports): static imports and re-exports, `import x = require()`,
 * `import("...")` types, `require()`, `require.resolve()` and `import()`. Shared by the package build
 * (scripts/assemble-packages.js, which rewrites them) and the import-graph tests (test/helpers/import-graph.ts).
 */
'use strict';

const ts = require('typescript');

/**
 * @typedef {object} ModuleSpecifier
 * @property {string} text the specifier
 * @property {number} start where its string literal starts (quote included)
 * @property {number} end where it ends
 * @property {boolean} typeOnly an `import type` or `export type` declaration, gone from compiled JavaScript
 */

function isRequireCall(callee) {
  return (
    (ts.isIdentifier(callee) && callee.text === 'require') ||
    (ts.isPropertyAccessExpression(callee) &&
      ts.isIdentifier(callee.expression) &&
      callee.expression.text === 'require' &&
      callee.name.text === 'resolve')
  );
}

/**
 * Every module specifier of `text`, the contents of `fileName` (its extension picks the parser's dialect).
 * @returns {ModuleSpecifier[]}
 */
function moduleSpecifiers(fileName, text) {
  const kind = /\.(c|m)?js$/.test(fileName) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const found = [];
  const take = (node, typeOnly = false) => {
    if (node !== undefined && ts.isStringLiteral(node)) {
      found.push({ text: node.text, start: node.getStart(source), end: node.getEnd(), typeOnly });
    }
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node)) take(node.moduleSpecifier, node.importClause?.isTypeOnly === true);
    else if (ts.isExportDeclaration(node)) take(node.moduleSpecifier, node.isTypeOnly);
    else if (ts.isExternalModuleReference(node)) take(node.expression);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      take(node.argument.literal, true);
    else if (ts.isCallExpression(node)) {
      if (isRequireCall(node.expression) || node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        take(node.arguments[0]);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

module.exports = { moduleSpecifiers };
