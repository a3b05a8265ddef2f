/** Dependency-free helpers every folder may import: one of each concept. */
export { isPlainObject, definedFields, type DefinedFields } from './values';
export { errorText, truncated } from './error-text';
export { formatPath, issueText, issueTexts, type PathSegment, type ValidationIssue } from './issue-text';
