// A cluster's name linking to its page: the one place that spells the /clusters/<name> address.
import { OrgLink } from '@/components/shell/org-link';

export function ClusterLink({ name }: { name: string }) {
  return (
    <OrgLink href={`/clusters/${encodeURIComponent(name)}`} className="nowrap">
      {name}
    </OrgLink>
  );
}
