-- DropIndex
DROP INDEX "Decision_at_idx";

-- CreateIndex
CREATE INDEX "DeadLetter_status_firstFailedAt_id_idx" ON "DeadLetter"("status", "firstFailedAt", "id");

-- CreateIndex
CREATE INDEX "Decision_at_endpoint_outcome_verified_idx" ON "Decision"("at", "endpoint", "outcome", "verified");

-- CreateIndex
CREATE INDEX "Decision_endpoint_at_idx" ON "Decision"("endpoint", "at");

-- CreateIndex
CREATE INDEX "Decision_endpoint_secretLabel_source_at_idx" ON "Decision"("endpoint", "secretLabel", "source", "at");

