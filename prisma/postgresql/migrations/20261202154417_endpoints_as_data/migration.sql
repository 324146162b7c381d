-- CreateTable
CREATE TABLE "Organization" (
    "id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Organization_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Endpoint" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "processingMode" TEXT NOT NULL,
    "options" TEXT,
    "connect" BOOLEAN NOT NULL DEFAULT false,
    "status" TEXT NOT NULL DEFAULT 'enabled',
    "deletedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Endpoint_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EndpointSecret" (
    "id" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "ciphertext" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3),
    "lastMatchedAt" TIMESTAMP(3),
    "retiredAt" TIMESTAMP(3),

    CONSTRAINT "EndpointSecret_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ConfigVersion" (
    "name" TEXT NOT NULL,
    "version" INTEGER NOT NULL,

    CONSTRAINT "ConfigVersion_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE UNIQUE INDEX "Organization_slug_key" ON "Organization"("slug");

-- CreateIndex
CREATE INDEX "Endpoint_organizationId_createdAt_idx" ON "Endpoint"("organizationId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "EndpointSecret_endpointId_label_key" ON "EndpointSecret"("endpointId", "label");

-- AddForeignKey
ALTER TABLE "Endpoint" ADD CONSTRAINT "Endpoint_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EndpointSecret" ADD CONSTRAINT "EndpointSecret_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "Endpoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- The default organization owns what a single-merchant deployment has (the endpoints configured in
-- the environment, and every data endpoint created before organizations can be chosen). Its id is a
-- constant of lib/organizations/organizations.ts. Times are UTC whatever the session's time zone.
INSERT INTO "Organization" ("id", "slug", "name", "createdAt") VALUES ('org_default', 'default', 'Default organization', (now() AT TIME ZONE 'UTC'));

-- The endpoints' change counter (lib/endpoints/data-endpoints.ts).
INSERT INTO "ConfigVersion" ("name", "version") VALUES ('endpoints', 0);
