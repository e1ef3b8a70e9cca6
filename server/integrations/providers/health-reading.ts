// The structured health a provider reports (HealthReading) and its plain-text summary.
import type { AlertReading, HealthReading, OperatorReading } from './types';

/** Alerts that count as unhealthy by default (the gates apply configured filters on `health` themselves). */
export const DEFAULT_ALERT_SEVERITIES = ['critical'];

/** The unfiltered summary of a health reading: degraded/unavailable operators, firing critical alerts, other issues. */
export function summarizeHealth(health: HealthReading): { healthy: boolean; healthIssues: string[] } {
  const issues: string[] = [];
  for (const o of health.operators) {
    if (o.degraded) issues.push(`ClusterOperator ${o.name} Degraded${o.message ? `: ${o.message}` : ''}`);
    else if (!o.available) issues.push(`ClusterOperator ${o.name} not Available${o.message ? `: ${o.message}` : ''}`);
  }
  for (const a of health.alerts ?? [])
    if (DEFAULT_ALERT_SEVERITIES.includes(a.severity))
      issues.push(`critical alert ${a.name} firing${a.namespace ? ` in ${a.namespace}` : ''}`);
  issues.push(...health.other);
  return { healthy: issues.length === 0, healthIssues: issues };
}

/**
 * Structured health from the stored issue texts (`ClusterOperator NAME Degraded: why`,
 * `critical alert NAME firing [in NAMESPACE]`; anything else is kept as is).
 */
export function healthFromIssues(issues: readonly string[]): HealthReading {
  const operators: OperatorReading[] = [];
  const alerts: AlertReading[] = [];
  const other: string[] = [];
  for (const issue of issues) {
    const op = /^ClusterOperator (\S+) (Degraded|not Available)(?:: (.*))?$/.exec(issue);
    const alert = /^critical alert (\S+) firing(?: in (\S+))?/.exec(issue);
    if (op) {
      const degraded = op[2] === 'Degraded';
      operators.push({ name: op[1]!, degraded, available: degraded, ...(op[3] ? { message: op[3] } : {}) });
    } else if (alert) alerts.push({ name: alert[1]!, ...(alert[2] ? { namespace: alert[2] } : {}), severity: 'critical' });
    else other.push(issue);
  }
  return { operators, alerts, other };
}
