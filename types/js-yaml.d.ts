// The part of js-yaml 4 that server/domain/bounded-parse.ts uses (the package ships no types).
declare module 'js-yaml' {
  export interface Schema {
    readonly __schema: unique symbol;
  }
  export const CORE_SCHEMA: Schema;
  export interface Mark {
    /** 0-based */
    line: number;
    /** 0-based */
    column: number;
    position: number;
  }
  export class YAMLException extends Error {
    reason: string;
    mark?: Mark;
  }
  export interface LoadOptions {
    schema?: Schema;
    json?: boolean;
    /** nesting limit, counting the document's root (default 100) */
    maxDepth?: number;
    maxTotalMergeKeys?: number;
    onWarning?: (warning: YAMLException) => void;
  }
  export function load(text: string, options?: LoadOptions): unknown;
}
