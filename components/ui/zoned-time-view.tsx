// One instant on screen: a <time> element whose text names its zone (UTC unless told otherwise).
import { formatInZone, isoOf } from './zoned-time';

export function ZonedTime({
  iso,
  zone = 'UTC',
  weekday = false,
  className = 'nowrap',
}: {
  iso: Date | string | null | undefined;
  zone?: string;
  weekday?: boolean;
  className?: string;
}) {
  const normalized = isoOf(iso);
  if (!normalized) return <span className="muted">—</span>;
  return (
    <time dateTime={normalized} className={className}>
      {formatInZone(normalized, zone, { weekday })}
    </time>
  );
}
