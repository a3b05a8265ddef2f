/** Types of scripts/module-specifiers.js, for the tests written in TypeScript. */
export interface ModuleSpecifier {
  /** The specifier. */
  text: string;
  /** Where its string literal starts (quote included). */
  start: number;
  /** Where it ends. */
  end: number;
  /** An `import type` or `export type` declaration, gone from compiled JavaScript. */
  typeOnly: boolean;
}

export function moduleSpecifiers(fileName: string, text: string): ModuleSpecifier[];
