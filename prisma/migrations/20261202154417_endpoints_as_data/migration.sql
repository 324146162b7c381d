-- CreateTable
CREATE TABLE "Organization" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Endpoint" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "processingMode" TEXT NOT NULL,
    "options" TEXT,
    "connect" BOOLEAN NOT NULL DEFAULT false,
    "status" TEXT NOT NULL DEFAULT 'enabled',
    "deletedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Endpoint_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "EndpointSecret" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "endpointId" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "ciphertext" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME,
    "lastMatchedAt" DATETIME,
    "retiredAt" DATETIME,
    CONSTRAINT "EndpointSecret_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "Endpoint" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ConfigVersion" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "version" INTEGER NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "Organization_slug_key" ON "Organization"("slug");

-- CreateIndex
CREATE INDEX "Endpoint_organizationId_createdAt_idx" ON "Endpoint"("organizationId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "EndpointSecret_endpointId_label_key" ON "EndpointSecret"("endpointId", "label");


-- The default organization owns what a single-merchant deployment has (the endpoints configured in
-- the environment, and every data endpoint created before organizations can be chosen). Its id is a
-- constant of lib/organizations/organizations.ts. Times as Prisma writes them on SQLite (ISO 8601, UTC).
INSERT INTO "Organization" ("id", "slug", "name", "createdAt") VALUES ('org_default', 'default', 'Default organization', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'));

-- The endpoints' change counter (lib/endpoints/data-endpoints.ts).
INSERT INTO "ConfigVersion" ("name", "version") VALUES ('endpoints', 0);
