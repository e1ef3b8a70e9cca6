import type { Metadata } from 'next';
import { ClusterDetail } from '@/components/cluster/cluster-detail';

export async function generateMetadata({ params }: { params: Promise<{ name: string }> }): Promise<Metadata> {
  const { name } = await params;
  return { title: decodeURIComponent(name) };
}

export default async function ClusterPage({ params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  return <ClusterDetail name={decodeURIComponent(name)} />;
}
