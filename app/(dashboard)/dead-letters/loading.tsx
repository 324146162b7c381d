// Skeleton while the page loads (see app/_components/page-loading.tsx for why not every segment has one).
export { PageLoading as default } from "@/app/_components/page-loading";
