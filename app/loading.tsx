import { LoadingRows } from '@/components/ui/states';

export default function Loading() {
  return <LoadingRows rows={8} />;
}
