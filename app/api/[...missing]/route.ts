// Any /api path no route serves: a JSON 404 in the API's error shape (never the dashboard's HTML page).
import { jsonError } from "@/lib/api/responses";

export const dynamic = "force-dynamic";

function missing(): Response {
  return jsonError(404, "not_found", "no API route at this path");
}

export { missing as GET, missing as HEAD, missing as POST, missing as PUT, missing as PATCH, missing as DELETE, missing as OPTIONS };
