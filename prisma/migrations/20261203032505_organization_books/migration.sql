-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_AuditEntry" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL DEFAULT 'org_default',
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actorId" TEXT NOT NULL,
    "actorEmail" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "targetType" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "note" TEXT,
    "noteCode" TEXT,
    "noteParams" TEXT
);
INSERT INTO "new_AuditEntry" ("action", "actorEmail", "actorId", "at", "id", "note", "noteCode", "noteParams", "targetId", "targetType") SELECT "action", "actorEmail", "actorId", "at", "id", "note", "noteCode", "noteParams", "targetId", "targetType" FROM "AuditEntry";
DROP TABLE "AuditEntry";
ALTER TABLE "new_AuditEntry" RENAME TO "AuditEntry";
CREATE INDEX "AuditEntry_targetType_targetId_at_idx" ON "AuditEntry"("targetType", "targetId", "at");
CREATE INDEX "AuditEntry_at_idx" ON "AuditEntry"("at");
CREATE INDEX "AuditEntry_actorEmail_at_idx" ON "AuditEntry"("actorEmail", "at");
CREATE INDEX "AuditEntry_action_at_idx" ON "AuditEntry"("action", "at");
CREATE TABLE "new_BooksCheck" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL DEFAULT 'org_default',
    "startedAt" DATETIME NOT NULL,
    "finishedAt" DATETIME,
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "ordersChecked" INTEGER NOT NULL DEFAULT 0,
    "ordersAgreeing" INTEGER NOT NULL DEFAULT 0,
    "ordersDiffering" INTEGER NOT NULL DEFAULT 0,
    "ordersWaiting" INTEGER NOT NULL DEFAULT 0,
    "ordersUnverifiable" INTEGER NOT NULL DEFAULT 0,
    "report" TEXT NOT NULL DEFAULT '{}',
    "error" TEXT
);
INSERT INTO "new_BooksCheck" ("error", "finishedAt", "id", "ordersAgreeing", "ordersChecked", "ordersDiffering", "ordersUnverifiable", "ordersWaiting", "report", "startedAt", "status", "trigger") SELECT "error", "finishedAt", "id", "ordersAgreeing", "ordersChecked", "ordersDiffering", "ordersUnverifiable", "ordersWaiting", "report", "startedAt", "status", "trigger" FROM "BooksCheck";
DROP TABLE "BooksCheck";
ALTER TABLE "new_BooksCheck" RENAME TO "BooksCheck";
CREATE INDEX "BooksCheck_startedAt_idx" ON "BooksCheck"("startedAt");
CREATE TABLE "new_DeadLetter" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL DEFAULT 'org_default',
    "dedupeKey" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "eventId" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "orderId" TEXT,
    "bodyHash" TEXT NOT NULL,
    "secretLabel" TEXT,
    "payload" TEXT NOT NULL,
    "purgedAt" DATETIME,
    "category" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "reasonCode" TEXT,
    "reasonParams" TEXT,
    "retryable" BOOLEAN NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 1,
    "firstFailedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastFailedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "nextAction" TEXT NOT NULL,
    "owner" TEXT,
    "status" TEXT NOT NULL DEFAULT 'open',
    "resolution" TEXT,
    "resolutionCode" TEXT,
    "resolutionParams" TEXT,
    "resolvedBy" TEXT,
    "resolvedAt" DATETIME
);
INSERT INTO "new_DeadLetter" ("account", "attempts", "bodyHash", "category", "dedupeKey", "endpoint", "eventId", "eventType", "firstFailedAt", "id", "lastFailedAt", "livemode", "nextAction", "orderId", "owner", "payload", "provider", "purgedAt", "reason", "reasonCode", "reasonParams", "resolution", "resolutionCode", "resolutionParams", "resolvedAt", "resolvedBy", "retryable", "secretLabel", "status") SELECT "account", "attempts", "bodyHash", "category", "dedupeKey", "endpoint", "eventId", "eventType", "firstFailedAt", "id", "lastFailedAt", "livemode", "nextAction", "orderId", "owner", "payload", "provider", "purgedAt", "reason", "reasonCode", "reasonParams", "resolution", "resolutionCode", "resolutionParams", "resolvedAt", "resolvedBy", "retryable", "secretLabel", "status" FROM "DeadLetter";
DROP TABLE "DeadLetter";
ALTER TABLE "new_DeadLetter" RENAME TO "DeadLetter";
CREATE UNIQUE INDEX "DeadLetter_dedupeKey_key" ON "DeadLetter"("dedupeKey");
CREATE INDEX "DeadLetter_status_lastFailedAt_idx" ON "DeadLetter"("status", "lastFailedAt");
CREATE INDEX "DeadLetter_status_firstFailedAt_id_idx" ON "DeadLetter"("status", "firstFailedAt", "id");
CREATE INDEX "DeadLetter_organizationId_orderId_idx" ON "DeadLetter"("organizationId", "orderId");
CREATE INDEX "DeadLetter_eventId_idx" ON "DeadLetter"("eventId");
CREATE TABLE "new_Decision" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL DEFAULT 'org_default',
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "provider" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "eventId" TEXT,
    "verified" BOOLEAN NOT NULL,
    "eventType" TEXT,
    "orderId" TEXT,
    "outcome" TEXT NOT NULL,
    "httpStatus" INTEGER,
    "reason" TEXT NOT NULL,
    "reasonCode" TEXT,
    "reasonParams" TEXT,
    "secretLabel" TEXT,
    "diagnosis" TEXT,
    "diagnosisCode" TEXT,
    "diagnosisParams" TEXT,
    "source" TEXT NOT NULL DEFAULT 'receiver'
);
INSERT INTO "new_Decision" ("at", "diagnosis", "diagnosisCode", "diagnosisParams", "endpoint", "eventId", "eventType", "httpStatus", "id", "orderId", "outcome", "provider", "reason", "reasonCode", "reasonParams", "secretLabel", "source", "verified") SELECT "at", "diagnosis", "diagnosisCode", "diagnosisParams", "endpoint", "eventId", "eventType", "httpStatus", "id", "orderId", "outcome", "provider", "reason", "reasonCode", "reasonParams", "secretLabel", "source", "verified" FROM "Decision";
DROP TABLE "Decision";
ALTER TABLE "new_Decision" RENAME TO "Decision";
CREATE INDEX "Decision_at_endpoint_outcome_verified_idx" ON "Decision"("at", "endpoint", "outcome", "verified");
CREATE INDEX "Decision_endpoint_at_idx" ON "Decision"("endpoint", "at");
CREATE INDEX "Decision_endpoint_secretLabel_source_at_idx" ON "Decision"("endpoint", "secretLabel", "source", "at");
CREATE INDEX "Decision_organizationId_orderId_at_idx" ON "Decision"("organizationId", "orderId", "at");
CREATE INDEX "Decision_eventId_at_idx" ON "Decision"("eventId", "at");
CREATE INDEX "Decision_outcome_at_idx" ON "Decision"("outcome", "at");
CREATE INDEX "Decision_provider_at_idx" ON "Decision"("provider", "at");
CREATE INDEX "Decision_httpStatus_at_idx" ON "Decision"("httpStatus", "at");
CREATE TABLE "new_Delivery" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL DEFAULT 'org_default',
    "orderId" TEXT NOT NULL,
    "paymentKey" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Delivery_organizationId_orderId_fkey" FOREIGN KEY ("organizationId", "orderId") REFERENCES "Order" ("organizationId", "id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_Delivery" ("createdAt", "eventId", "id", "orderId", "paymentKey", "provider") SELECT "createdAt", "eventId", "id", "orderId", "paymentKey", "provider" FROM "Delivery";
DROP TABLE "Delivery";
ALTER TABLE "new_Delivery" RENAME TO "Delivery";
CREATE UNIQUE INDEX "Delivery_organizationId_orderId_key" ON "Delivery"("organizationId", "orderId");
CREATE TABLE "new_Dispute" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL DEFAULT 'org_default',
    "provider" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "paymentKey" TEXT NOT NULL,
    "disputeId" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Dispute_organizationId_orderId_fkey" FOREIGN KEY ("organizationId", "orderId") REFERENCES "Order" ("organizationId", "id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_Dispute" ("account", "amount", "createdAt", "currency", "disputeId", "id", "livemode", "orderId", "paymentKey", "provider", "status", "updatedAt") SELECT "account", "amount", "createdAt", "currency", "disputeId", "id", "livemode", "orderId", "paymentKey", "provider", "status", "updatedAt" FROM "Dispute";
DROP TABLE "Dispute";
ALTER TABLE "new_Dispute" RENAME TO "Dispute";
CREATE INDEX "Dispute_organizationId_orderId_idx" ON "Dispute"("organizationId", "orderId");
CREATE UNIQUE INDEX "Dispute_provider_account_livemode_disputeId_key" ON "Dispute"("provider", "account", "livemode", "disputeId");
CREATE TABLE "new_ExtraCharge" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL DEFAULT 'org_default',
    "orderId" TEXT NOT NULL,
    "paymentKey" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "eventId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "note" TEXT,
    "resolvedBy" TEXT,
    "resolvedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ExtraCharge_organizationId_orderId_fkey" FOREIGN KEY ("organizationId", "orderId") REFERENCES "Order" ("organizationId", "id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_ExtraCharge" ("account", "amount", "createdAt", "currency", "eventId", "id", "livemode", "note", "orderId", "paymentKey", "provider", "resolvedAt", "resolvedBy", "status") SELECT "account", "amount", "createdAt", "currency", "eventId", "id", "livemode", "note", "orderId", "paymentKey", "provider", "resolvedAt", "resolvedBy", "status" FROM "ExtraCharge";
DROP TABLE "ExtraCharge";
ALTER TABLE "new_ExtraCharge" RENAME TO "ExtraCharge";
CREATE INDEX "ExtraCharge_status_createdAt_idx" ON "ExtraCharge"("status", "createdAt");
CREATE INDEX "ExtraCharge_organizationId_orderId_idx" ON "ExtraCharge"("organizationId", "orderId");
CREATE UNIQUE INDEX "ExtraCharge_provider_account_livemode_paymentKey_key" ON "ExtraCharge"("provider", "account", "livemode", "paymentKey");
CREATE TABLE "new_GapCheck" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL DEFAULT 'org_default',
    "endpoint" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "startedAt" DATETIME NOT NULL,
    "finishedAt" DATETIME,
    "since" DATETIME NOT NULL,
    "listed" INTEGER NOT NULL DEFAULT 0,
    "alreadyStored" INTEGER NOT NULL DEFAULT 0,
    "stored" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT
);
INSERT INTO "new_GapCheck" ("alreadyStored", "endpoint", "error", "finishedAt", "id", "listed", "since", "skipped", "startedAt", "status", "stored", "trigger") SELECT "alreadyStored", "endpoint", "error", "finishedAt", "id", "listed", "since", "skipped", "startedAt", "status", "stored", "trigger" FROM "GapCheck";
DROP TABLE "GapCheck";
ALTER TABLE "new_GapCheck" RENAME TO "GapCheck";
CREATE INDEX "GapCheck_trigger_endpoint_startedAt_idx" ON "GapCheck"("trigger", "endpoint", "startedAt");
CREATE INDEX "GapCheck_trigger_startedAt_idx" ON "GapCheck"("trigger", "startedAt");
CREATE TABLE "new_LedgerEntry" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL DEFAULT 'org_default',
    "businessKey" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "paymentKey" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "eventId" TEXT NOT NULL,
    "occurredAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "LedgerEntry_organizationId_orderId_fkey" FOREIGN KEY ("organizationId", "orderId") REFERENCES "Order" ("organizationId", "id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_LedgerEntry" ("account", "amount", "businessKey", "createdAt", "currency", "eventId", "id", "kind", "livemode", "occurredAt", "orderId", "paymentKey", "provider") SELECT "account", "amount", "businessKey", "createdAt", "currency", "eventId", "id", "kind", "livemode", "occurredAt", "orderId", "paymentKey", "provider" FROM "LedgerEntry";
DROP TABLE "LedgerEntry";
ALTER TABLE "new_LedgerEntry" RENAME TO "LedgerEntry";
CREATE UNIQUE INDEX "LedgerEntry_businessKey_key" ON "LedgerEntry"("businessKey");
CREATE INDEX "LedgerEntry_organizationId_orderId_idx" ON "LedgerEntry"("organizationId", "orderId");
CREATE INDEX "LedgerEntry_provider_account_livemode_paymentKey_idx" ON "LedgerEntry"("provider", "account", "livemode", "paymentKey");
CREATE TABLE "new_Order" (
    "organizationId" TEXT NOT NULL DEFAULT 'org_default',
    "id" TEXT NOT NULL,
    "account" TEXT NOT NULL DEFAULT 'default',
    "livemode" BOOLEAN NOT NULL DEFAULT true,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'created',
    "refundedAmount" INTEGER NOT NULL DEFAULT 0,
    "disputedAmount" INTEGER NOT NULL DEFAULT 0,
    "checkoutSessionId" TEXT,
    "lastEventAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("organizationId", "id")
);
INSERT INTO "new_Order" ("account", "amount", "checkoutSessionId", "createdAt", "currency", "disputedAmount", "id", "lastEventAt", "livemode", "refundedAmount", "status", "updatedAt") SELECT "account", "amount", "checkoutSessionId", "createdAt", "currency", "disputedAmount", "id", "lastEventAt", "livemode", "refundedAmount", "status", "updatedAt" FROM "Order";
DROP TABLE "Order";
ALTER TABLE "new_Order" RENAME TO "Order";
CREATE INDEX "Order_organizationId_status_currency_updatedAt_id_idx" ON "Order"("organizationId", "status", "currency", "updatedAt", "id");
CREATE INDEX "Order_organizationId_status_updatedAt_id_idx" ON "Order"("organizationId", "status", "updatedAt", "id");
CREATE INDEX "Order_organizationId_currency_updatedAt_id_idx" ON "Order"("organizationId", "currency", "updatedAt", "id");
CREATE INDEX "Order_organizationId_updatedAt_id_idx" ON "Order"("organizationId", "updatedAt", "id");
CREATE INDEX "Order_organizationId_createdAt_idx" ON "Order"("organizationId", "createdAt");
CREATE INDEX "Order_organizationId_currency_amount_id_idx" ON "Order"("organizationId", "currency", "amount", "id");
CREATE INDEX "Order_organizationId_lastEventAt_id_idx" ON "Order"("organizationId", "lastEventAt", "id");
CREATE UNIQUE INDEX "Order_organizationId_checkoutSessionId_key" ON "Order"("organizationId", "checkoutSessionId");
CREATE TABLE "new_OutboxMessage" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL DEFAULT 'org_default',
    "idempotencyKey" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseOwner" TEXT,
    "leaseExpiresAt" DATETIME,
    "lastStatusCode" INTEGER,
    "lastError" TEXT,
    "note" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_OutboxMessage" ("attempts", "body", "createdAt", "id", "idempotencyKey", "lastError", "lastStatusCode", "leaseExpiresAt", "leaseOwner", "nextAttemptAt", "note", "orderId", "status", "target", "updatedAt") SELECT "attempts", "body", "createdAt", "id", "idempotencyKey", "lastError", "lastStatusCode", "leaseExpiresAt", "leaseOwner", "nextAttemptAt", "note", "orderId", "status", "target", "updatedAt" FROM "OutboxMessage";
DROP TABLE "OutboxMessage";
ALTER TABLE "new_OutboxMessage" RENAME TO "OutboxMessage";
CREATE UNIQUE INDEX "OutboxMessage_idempotencyKey_key" ON "OutboxMessage"("idempotencyKey");
CREATE INDEX "OutboxMessage_status_nextAttemptAt_idx" ON "OutboxMessage"("status", "nextAttemptAt");
CREATE INDEX "OutboxMessage_organizationId_orderId_idx" ON "OutboxMessage"("organizationId", "orderId");
CREATE TABLE "new_ReconciliationRun" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL DEFAULT 'org_default',
    "source" TEXT NOT NULL,
    "startedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" DATETIME,
    "format" TEXT NOT NULL DEFAULT 'lab',
    "provider" TEXT NOT NULL DEFAULT 'lab',
    "account" TEXT NOT NULL DEFAULT 'lab',
    "livemode" BOOLEAN NOT NULL DEFAULT true,
    "scopeKey" TEXT NOT NULL DEFAULT 'lab:lab:live',
    "periodFrom" DATETIME,
    "periodTo" DATETIME,
    "periodGiven" BOOLEAN NOT NULL DEFAULT false,
    "status" TEXT NOT NULL DEFAULT 'done',
    "actor" TEXT NOT NULL DEFAULT '',
    "filePath" TEXT,
    "bytesTotal" INTEGER NOT NULL DEFAULT 0,
    "bytesDone" INTEGER NOT NULL DEFAULT 0,
    "rowCount" INTEGER NOT NULL DEFAULT 0,
    "orderCount" INTEGER NOT NULL DEFAULT 0,
    "mismatchCount" INTEGER NOT NULL DEFAULT 0,
    "overcredited" TEXT NOT NULL DEFAULT '{}',
    "totals" TEXT NOT NULL DEFAULT '{}',
    "payouts" TEXT NOT NULL DEFAULT '{}',
    "error" TEXT,
    "errorCode" TEXT,
    "errorParams" TEXT,
    "activeScope" TEXT,
    "claimedBy" TEXT,
    "leaseUntil" DATETIME,
    "attempts" INTEGER NOT NULL DEFAULT 0
);
INSERT INTO "new_ReconciliationRun" ("account", "activeScope", "actor", "attempts", "bytesDone", "bytesTotal", "claimedBy", "error", "errorCode", "errorParams", "filePath", "finishedAt", "format", "id", "leaseUntil", "livemode", "mismatchCount", "orderCount", "overcredited", "payouts", "periodFrom", "periodGiven", "periodTo", "provider", "rowCount", "scopeKey", "source", "startedAt", "status", "totals") SELECT "account", "activeScope", "actor", "attempts", "bytesDone", "bytesTotal", "claimedBy", "error", "errorCode", "errorParams", "filePath", "finishedAt", "format", "id", "leaseUntil", "livemode", "mismatchCount", "orderCount", "overcredited", "payouts", "periodFrom", "periodGiven", "periodTo", "provider", "rowCount", "scopeKey", "source", "startedAt", "status", "totals" FROM "ReconciliationRun";
DROP TABLE "ReconciliationRun";
ALTER TABLE "new_ReconciliationRun" RENAME TO "ReconciliationRun";
CREATE UNIQUE INDEX "ReconciliationRun_activeScope_key" ON "ReconciliationRun"("activeScope");
CREATE INDEX "ReconciliationRun_startedAt_idx" ON "ReconciliationRun"("startedAt");
CREATE INDEX "ReconciliationRun_status_scopeKey_idx" ON "ReconciliationRun"("status", "scopeKey");
CREATE TABLE "new_Replay" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL DEFAULT 'org_default',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdBy" TEXT NOT NULL,
    "filter" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "eventCount" INTEGER NOT NULL,
    "orderCount" INTEGER NOT NULL,
    "preview" TEXT NOT NULL,
    "appliedAt" DATETIME,
    "appliedBy" TEXT,
    "result" TEXT
);
INSERT INTO "new_Replay" ("appliedAt", "appliedBy", "createdAt", "createdBy", "eventCount", "filter", "id", "orderCount", "preview", "result", "status") SELECT "appliedAt", "appliedBy", "createdAt", "createdBy", "eventCount", "filter", "id", "orderCount", "preview", "result", "status" FROM "Replay";
DROP TABLE "Replay";
ALTER TABLE "new_Replay" RENAME TO "Replay";
CREATE INDEX "Replay_createdAt_idx" ON "Replay"("createdAt");
CREATE TABLE "new_WebhookEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL DEFAULT 'org_default',
    "provider" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "eventId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "bodyHash" TEXT NOT NULL,
    "orderId" TEXT,
    "paymentKey" TEXT,
    "status" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "purgedAt" DATETIME,
    "secretLabel" TEXT,
    "headerNames" TEXT,
    "customerEmail" TEXT,
    "chargeId" TEXT,
    "checkoutSessionId" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "firstFailedAt" DATETIME,
    "nextAttemptAt" DATETIME,
    "leaseOwner" TEXT,
    "leaseExpiresAt" DATETIME,
    "dueAt" DATETIME,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processedAt" DATETIME
);
INSERT INTO "new_WebhookEvent" ("account", "attempts", "bodyHash", "chargeId", "checkoutSessionId", "customerEmail", "dueAt", "endpoint", "eventId", "firstFailedAt", "headerNames", "id", "lastError", "leaseExpiresAt", "leaseOwner", "livemode", "nextAttemptAt", "orderId", "payload", "paymentKey", "processedAt", "provider", "purgedAt", "receivedAt", "secretLabel", "status", "type") SELECT "account", "attempts", "bodyHash", "chargeId", "checkoutSessionId", "customerEmail", "dueAt", "endpoint", "eventId", "firstFailedAt", "headerNames", "id", "lastError", "leaseExpiresAt", "leaseOwner", "livemode", "nextAttemptAt", "orderId", "payload", "paymentKey", "processedAt", "provider", "purgedAt", "receivedAt", "secretLabel", "status", "type" FROM "WebhookEvent";
DROP TABLE "WebhookEvent";
ALTER TABLE "new_WebhookEvent" RENAME TO "WebhookEvent";
CREATE INDEX "WebhookEvent_status_nextAttemptAt_idx" ON "WebhookEvent"("status", "nextAttemptAt");
CREATE INDEX "WebhookEvent_status_leaseExpiresAt_idx" ON "WebhookEvent"("status", "leaseExpiresAt");
CREATE INDEX "WebhookEvent_dueAt_receivedAt_idx" ON "WebhookEvent"("dueAt", "receivedAt");
CREATE INDEX "WebhookEvent_organizationId_orderId_idx" ON "WebhookEvent"("organizationId", "orderId");
CREATE INDEX "WebhookEvent_paymentKey_idx" ON "WebhookEvent"("paymentKey");
CREATE INDEX "WebhookEvent_eventId_idx" ON "WebhookEvent"("eventId");
CREATE INDEX "WebhookEvent_chargeId_idx" ON "WebhookEvent"("chargeId");
CREATE INDEX "WebhookEvent_customerEmail_idx" ON "WebhookEvent"("customerEmail");
CREATE INDEX "WebhookEvent_checkoutSessionId_idx" ON "WebhookEvent"("checkoutSessionId");
CREATE INDEX "WebhookEvent_status_receivedAt_idx" ON "WebhookEvent"("status", "receivedAt");
CREATE UNIQUE INDEX "WebhookEvent_provider_account_livemode_eventId_key" ON "WebhookEvent"("provider", "account", "livemode", "eventId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

