// The messages between the server's thread and the forecast's worker thread (forecast-worker.ts,
// forecast-thread.ts). Plain data only: they are copied across threads.
import type { MetricsScrapeOptions } from '@/server/metrics/collect-fleet-metrics';
import type { AppErrorCode, FieldProblem } from '@/server/services/app-error';
import type { ForecastRunInput, ForecastRunOutput } from '@/server/services/forecast-service';
import type { PolicyDraft } from '@/server/services/policies/evaluate-draft';
import type { ForecastImpact } from '@/server/services/policies/preview-forecast-impact';

export type ToForecastThread =
  | { kind: 'run'; id: number; organizationId: number; input: ForecastRunInput; atMs: number }
  | { kind: 'impact'; id: number; organizationId: number; draft: PolicyDraft; atMs: number }
  /** a /api/metrics scrape body (collect-fleet-metrics.ts) */
  | { kind: 'metrics'; id: number; atMs: number; opts: MetricsScrapeOptions }
  | { kind: 'stop' };

export type FromForecastThread =
  | { kind: 'done'; id: number; output: ForecastRunOutput | ForecastImpact | string }
  /** an AppError keeps its code and problems; anything else is reported as a failure of the thread */
  | { kind: 'failed'; id: number; code: AppErrorCode | null; message: string; problems: FieldProblem[] }
  /** a walk of the warm list ended: how many forecasts it made sure of (computed or still valid) */
  | { kind: 'warmed'; forecasts: number }
  | { kind: 'stopped' };
