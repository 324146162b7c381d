import { measureReconciliation } from "@/lib/bench/reconcile-bench";
(async () => { console.log(JSON.stringify(await measureReconciliation(Number(process.argv[2])))); })();
