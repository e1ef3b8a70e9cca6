// A cluster's name linking to its page: the one place that spells the /clusters/<name> address.
import Link from 'next/link';

export function ClusterLink({ name }: { name: string }) {
  return (
    <Link href={`/clusters/${encodeURIComponent(name)}`} className="nowrap">
      {name}
    </Link>
  );
}
