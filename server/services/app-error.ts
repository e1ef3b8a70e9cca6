// Errors services throw for expected failures; server/api maps them onto tRPC codes.
export type AppErrorCode =
  'NOT_FOUND' | 'CONFLICT' | 'INVALID_INPUT' | 'PRECONDITION_FAILED' | 'FORBIDDEN' | 'UNAUTHORIZED' | 'TOO_MANY_REQUESTS';

export interface FieldProblem {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly code: AppErrorCode,
    message: string,
    readonly problems: FieldProblem[] = [],
  ) {
    super(message);
    this.name = 'AppError';
  }
}
